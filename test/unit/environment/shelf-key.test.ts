import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { environmentKey, hashKeyFiles, sandboxBase, type EnvironmentKeyParts } from "../../../src/environment/index.js";

const parts: EnvironmentKeyParts = {
  setup: ["python3 -m venv .venv", ".venv/bin/pip install -e ."],
  env: { A: "1", B: "2" },
  keyFiles: { "pyproject.toml": "0".repeat(40) },
  sandbox: { kind: "bwrap", base: "x86_64 abc" },
};

describe("environmentKey", () => {
  it("depends on the values, not on the order of keys", () => {
    const reordered = { sandbox: { base: "x86_64 abc", kind: "bwrap" }, keyFiles: parts.keyFiles, env: { B: "2", A: "1" }, setup: parts.setup };
    expect(environmentKey(reordered)).toBe(environmentKey(parts));
    expect(environmentKey(parts)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("changes with each part: the setup's order, a variable, a key file's blob, the sandbox's kind and base", () => {
    const key = environmentKey(parts);
    const changed: EnvironmentKeyParts[] = [
      { ...parts, setup: [...parts.setup].reverse() },
      { ...parts, env: { ...parts.env, A: "3" } },
      { ...parts, keyFiles: { "pyproject.toml": "1".repeat(40) } },
      { ...parts, sandbox: { kind: "container", base: "x86_64 abc" } },
      { ...parts, sandbox: { kind: "bwrap", base: "aarch64 abc" } },
    ];
    const keys = changed.map(environmentKey);
    expect(new Set([key, ...keys]).size).toBe(changed.length + 1);
  });
});

describe("sandboxBase", () => {
  it("is the machine and the host's os-release for bubblewrap, the description (its image) for a container", () => {
    expect(sandboxBase({ kind: "bwrap", description: "one" })).toBe(sandboxBase({ kind: "bwrap", description: "other" }));
    expect(sandboxBase({ kind: "bwrap", description: "one" })).toMatch(new RegExp(`^${os.machine()} [0-9a-f]{16}$`));
    expect(sandboxBase({ kind: "container", description: "in a podman container of magis-base" })).toContain("magis-base");
  });
});

describe("hashKeyFiles", () => {
  let root: string;
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it("gives git's blob ids of the files the paths and globs match, links hashed by their text and never followed", () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-key-files-"));
    fs.writeFileSync(path.join(root, "package.json"), '{"name":"a"}\n');
    fs.mkdirSync(path.join(root, "pkg", "sub"), { recursive: true });
    fs.writeFileSync(path.join(root, "pkg", "sub", "package-lock.json"), "{}\n");
    fs.symlinkSync("/etc/shadow", path.join(root, "pkg", "package.json"));
    fs.symlinkSync("/etc", path.join(root, "etc"));
    fs.mkdirSync(path.join(root, ".git"));
    fs.writeFileSync(path.join(root, ".git", "package.json"), "not the repository's\n");
    execFileSync("git", ["init", "-q"], { cwd: root });
    const ids = hashKeyFiles(root, ["package.json", "**/package-lock.json", "pkg/package.json", "etc/os-release", "../outside", "missing.txt"]);
    const gitId = (file: string) => execFileSync("git", ["hash-object", file], { cwd: root, encoding: "utf8" }).trim();
    // git hashes a link by its text, as `git hash-object --stdin` of that text.
    const linkId = execFileSync("git", ["hash-object", "--stdin"], { cwd: root, input: "/etc/shadow", encoding: "utf8" }).trim();
    expect(ids).toEqual({
      "package.json": gitId("package.json"),
      "pkg/package.json": linkId,
      "pkg/sub/package-lock.json": gitId("pkg/sub/package-lock.json"),
    });
    expect(Object.keys(hashKeyFiles(root, ["**/os-release"]))).toEqual([]);
  });
});
