import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { DeclarationError } from "../../../src/environment/declare/declaration-error.js";
import { describeDeclaration, readEnvironmentDeclaration } from "../../../src/environment/read-declaration.js";
import { checkoutWith, removeCheckouts } from "./declaration-files.js";

afterEach(removeCheckouts);

const DEVCONTAINER = JSON.stringify({ postCreateCommand: "pip install -e ." });
const COPILOT = "jobs:\n  copilot-setup-steps:\n    steps:\n      - run: npm ci\n";

describe("readEnvironmentDeclaration", () => {
  it("returns null when nothing declares an environment", () => {
    expect(readEnvironmentDeclaration(checkoutWith({ "package.json": "{}" }), parseConfig({}))).toBeNull();
  });

  it("reads environment: in magis.yml, a string or a list of setup commands, env, network and key files as given", () => {
    const root = checkoutWith({ "pyproject.toml": "" });
    const listed = readEnvironmentDeclaration(
      root,
      parseConfig({
        environment: {
          setup: ["python3 -m venv .venv", ".venv/bin/pip install -e ."],
          maintenance: ".venv/bin/pip install -e .",
          env: { PIP_NO_INDEX: "1" },
          network: ["pypi.org", "*.pythonhosted.org"],
          key_files: ["pyproject.toml", "requirements/*.txt"],
        },
      }),
    );
    expect(listed).toEqual({
      source: ".github/magis.yml environment",
      setup: [
        { name: "setup[1]", command: "python3 -m venv .venv" },
        { name: "setup[2]", command: ".venv/bin/pip install -e ." },
      ],
      maintenance: [{ name: "maintenance[1]", command: ".venv/bin/pip install -e ." }],
      env: { PIP_NO_INDEX: "1" },
      keyFiles: ["pyproject.toml", "requirements/*.txt"],
      network: ["pypi.org", "*.pythonhosted.org"],
      unsupported: [],
      shadowed: [],
    });
    const single = readEnvironmentDeclaration(root, parseConfig({ environment: { setup: "make dev" }, test_env: { NOT: "part of it" } }))!;
    expect(single.setup).toEqual([{ name: "setup[1]", command: "make dev" }]);
    expect(single.env).toEqual({});
    expect(single.network).toBeNull();
    expect(single.keyFiles).toEqual(["pyproject.toml"]);
  });

  it("takes setup_command as one step, without test_command", () => {
    const declaration = readEnvironmentDeclaration(checkoutWith({}), parseConfig({ setup_command: "npm ci" }));
    expect(declaration).toMatchObject({
      source: ".github/magis.yml setup_command",
      setup: [{ name: "setup_command", command: "npm ci" }],
      maintenance: [],
      shadowed: [],
    });
  });

  it("lets the first found win, in order, and names every other one found as shadowed, unread", () => {
    const files = {
      ".devcontainer/devcontainer.json": DEVCONTAINER,
      ".devcontainer.json": "{ this does not parse",
      ".github/workflows/copilot-setup-steps.yml": COPILOT,
    };
    const all = readEnvironmentDeclaration(checkoutWith(files), parseConfig({ environment: { setup: "make" }, setup_command: "npm ci" }))!;
    expect(all.source).toBe(".github/magis.yml environment");
    expect(all.shadowed).toEqual([
      ".devcontainer/devcontainer.json (not used: the first found, .github/magis.yml environment, wins)",
      ".devcontainer.json (not used: the first found, .github/magis.yml environment, wins)",
      ".github/workflows/copilot-setup-steps.yml (not used: the first found, .github/magis.yml environment, wins)",
      ".github/magis.yml setup_command (not used: the first found, .github/magis.yml environment, wins)",
    ]);
    const devcontainer = readEnvironmentDeclaration(checkoutWith(files), parseConfig({ setup_command: "npm ci" }))!;
    expect(devcontainer.source).toBe(".devcontainer/devcontainer.json");
    expect(devcontainer.shadowed).toHaveLength(3);
    const copilot = readEnvironmentDeclaration(
      checkoutWith({ ".github/workflows/copilot-setup-steps.yml": COPILOT }),
      parseConfig({ setup_command: "npm ci" }),
    )!;
    expect(copilot.source).toBe(".github/workflows/copilot-setup-steps.yml");
    expect(copilot.setup.map((step) => step.name)).toEqual(["steps[1]"]);
    expect(copilot.shadowed).toEqual([".github/magis.yml setup_command (not used: the first found, .github/workflows/copilot-setup-steps.yml, wins)"]);
  });

  it("defaults the key files to the manifests and lockfiles found, not in hidden, vendored or too deep folders, plus the declaration's own file", () => {
    const root = checkoutWith({
      ".devcontainer/devcontainer.json": DEVCONTAINER,
      "package.json": "{}",
      "package-lock.json": "{}",
      "requirements-dev.txt": "",
      "requirements/test.txt": "",
      "notes.txt": "",
      "web/yarn.lock": "",
      "services/api/go.mod": "",
      "a/b/c/Cargo.toml": "",
      "a/b/c/d/Cargo.toml": "",
      "node_modules/left-pad/package.json": "{}",
      "vendor/x/composer.json": "{}",
      ".venv/lib/pyproject.toml": "",
      "src/setup.cfg.bak": "",
    });
    expect(readEnvironmentDeclaration(root, parseConfig({}))!.keyFiles).toEqual([
      ".devcontainer/devcontainer.json",
      "a/b/c/Cargo.toml",
      "package-lock.json",
      "package.json",
      "requirements-dev.txt",
      "requirements/test.txt",
      "services/api/go.mod",
      "web/yarn.lock",
    ]);
  });

  it("refuses a declaration file that is a link leading out of the checkout, rather than reading a host file", () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "magis-outside-"));
    try {
      fs.writeFileSync(path.join(outside, "devcontainer.json"), JSON.stringify({ postCreateCommand: "cat /etc/shadow" }));
      const root = checkoutWith({});
      fs.mkdirSync(path.join(root, ".devcontainer"));
      fs.symlinkSync(path.join(outside, "devcontainer.json"), path.join(root, ".devcontainer/devcontainer.json"));
      expect(() => readEnvironmentDeclaration(root, parseConfig({ setup_command: "npm ci" }))).toThrow(DeclarationError);
      expect(() => readEnvironmentDeclaration(root, parseConfig({}))).toThrow(
        ".devcontainer/devcontainer.json: cannot be read: it leads outside the repository through a symbolic link. Make it a plain file of the repository",
      );
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe("describeDeclaration", () => {
  it("says where the environment came from, what it runs, what of it is not used, and what else was found", () => {
    const root = checkoutWith({
      ".devcontainer/devcontainer.json": JSON.stringify({
        onCreateCommand: "a",
        updateContentCommand: "b",
        postCreateCommand: { c: "c", d: "d" },
        containerEnv: { X: "1" },
        features: { "ghcr.io/devcontainers/features/python:1": {} },
      }),
    });
    expect(describeDeclaration(readEnvironmentDeclaration(root, parseConfig({ setup_command: "make" }))!)).toBe(
      "from .devcontainer/devcontainer.json: 3 setup steps, 1 maintenance, 1 variable; not used: `features` (ghcr.io/devcontainers/features/python:1) is not installed: install what it gives in `onCreateCommand`; also found: .github/magis.yml setup_command (not used: the first found, .devcontainer/devcontainer.json, wins)",
    );
    expect(describeDeclaration(readEnvironmentDeclaration(root, parseConfig({ environment: { setup: "make", network: ["pypi.org"] } }))!)).toBe(
      "from .github/magis.yml environment: 1 setup step, 0 maintenance, network narrowed to 1 host; also found: .devcontainer/devcontainer.json (not used: the first found, .github/magis.yml environment, wins)",
    );
  });
});
