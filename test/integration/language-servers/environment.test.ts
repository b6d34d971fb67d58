import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openLanguageServers, type ChangeCheck, type LanguageServers } from "../../../src/language-servers/open-language-servers.js";
import type { ServerEnvironment } from "../../../src/language-servers/types.js";

const LIMITS = { startMs: 60_000, requestMs: 60_000, memoryMb: 512 };
const dirs: string[] = [];
const opened: LanguageServers[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.stop()));
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

// A secret of the host, in a folder outside the checkout and the environment.
const MARKER = `sk-host-${crypto.randomBytes(8).toString("hex")}`;

function folder(files: Record<string, string>, links: Record<string, string> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-lsp-env-"));
  dirs.push(dir);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  for (const [link, target] of Object.entries(links)) {
    fs.mkdirSync(path.dirname(path.join(dir, link)), { recursive: true });
    fs.symlinkSync(target, path.join(dir, link));
  }
  return dir;
}

function servers(root: string): LanguageServers {
  const s = openLanguageServers(root, LIMITS);
  opened.push(s);
  return s;
}

const rules = (check: ChangeCheck) => (check.checked ? check.added.map((p) => p.rule) : [`unchecked: ${check.why}`]);

/**
 * The set-up copy of a Python repository whose setup installed a package of its own making into a virtualenv, as a
 * setup step would: Debian's python3 with venv, and pip installing from the folder alone (no registry).
 */
function pythonEnvironment(): { copy: string; sitePackages: string } {
  const copy = folder({
    "vendor/calc/pyproject.toml":
      '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n[project]\nname = "calc"\nversion = "1.0"\n',
    "vendor/calc/calc/__init__.py": "def add(a: int, b: int) -> int:\n    return a + b\n",
  });
  execFileSync("/usr/bin/python3", ["-m", "venv", "--system-site-packages", "--without-pip", ".venv"], { cwd: copy });
  execFileSync(".venv/bin/python", ["-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "./vendor/calc"], { cwd: copy });
  fs.rmSync(path.join(copy, "vendor"), { recursive: true });
  const sitePackages = path.join(copy, ".venv/lib/python3.11/site-packages");
  expect(fs.existsSync(path.join(sitePackages, "calc/__init__.py"))).toBe(true);
  return { copy, sitePackages };
}

describe("the language servers see the job's environment", () => {
  it("Pyright resolves a package installed in the environment's venv and reports a wrong call into it", async () => {
    const { copy, sitePackages } = pythonEnvironment();
    const root = folder({ "app.py": "def main():\n    return 1\n" });
    const before = fs.readFileSync(path.join(root, "app.py"), "utf8");
    const after = `from calc import add\n\n\ndef main():\n    return add(1, 2, 3)\n`;
    const s = servers(root);
    // Without the environment the import cannot be resolved, and the wrong call goes unseen.
    expect(rules(await s.check("app.py", before, after))).toEqual(["reportMissingImports"]);
    const environment: ServerEnvironment = { roots: [copy], python: [sitePackages], nodeModules: [] };
    s.useEnvironment(Promise.resolve(environment));
    await Promise.resolve();
    // Once it is known, the server is restarted with it: the import resolves and the call is refused.
    const check = await s.check("app.py", before, after);
    expect(check.checked && check.added.map((p) => `${p.line} ${p.rule} ${p.message}`)).toEqual(["5 reportCallIssue Expected 2 positional arguments"]);
    expect(rules(await s.check("app.py", before, after.replace("add(1, 2, 3)", "add(1, 2)")))).toEqual([]);
  });

  it("the TypeScript server resolves a package in the environment's node_modules and reports a wrong argument's type", async () => {
    const copy = folder({
      "node_modules/calc/package.json": '{"name": "calc", "version": "1.0.0", "types": "index.d.ts"}\n',
      "node_modules/calc/index.d.ts": "export declare function add(a: number, b: number): number;\n",
    });
    const root = folder({ "src/use.ts": "export const one = 1;\n", "tsconfig.json": '{"compilerOptions": {"strict": true}}\n' });
    const s = servers(root);
    s.useEnvironment(Promise.resolve({ roots: [copy], python: [], nodeModules: [{ from: path.join(copy, "node_modules"), at: "node_modules" }] }));
    await Promise.resolve();
    const before = fs.readFileSync(path.join(root, "src/use.ts"), "utf8");
    const check = await s.check("src/use.ts", before, 'import { add } from "calc";\nexport const one = add("1", 2);\n');
    expect(check.checked && check.added.map((p) => `${p.line} ${p.rule}`)).toEqual(["2 2345"]);
    expect(rules(await s.check("src/use.ts", before, 'import { add } from "calc";\nexport const one = add(1, 2);\n'))).toEqual([]);
    // The checkout is only read: nothing was made in it where the environment's folder is shown.
    expect(fs.readdirSync(root).sort()).toEqual(["src", "tsconfig.json"]);
  });

  it("a search path outside the environment, and a folder reached through a link out of it, are not shown", async () => {
    const host = folder({ "secret_mod.py": `SECRET = "${MARKER}"\n`, "pkg/secret_pkg/__init__.py": `SECRET = "${MARKER}"\n` });
    const copy = folder(
      { ".venv/lib/python3.11/site-packages/calc/__init__.py": "def add(a, b):\n    return a + b\n" },
      { "linked-site": path.join(host, "pkg") },
    );
    const root = folder({ "app.py": "x = 1\n" });
    const s = servers(root);
    // What the sandbox printed: the environment's own folder, a host folder, and the copy's link to another.
    s.useEnvironment(
      Promise.resolve({
        roots: [copy],
        python: [path.join(copy, ".venv/lib/python3.11/site-packages"), host, path.join(copy, "linked-site")],
        nodeModules: [],
      }),
    );
    await Promise.resolve();
    const uses = "from calc import add\nfrom secret_mod import SECRET\nfrom secret_pkg import SECRET as S\n\nx: int = SECRET\ny: int = S\nz = add(1, 2)\n";
    const check = await s.check("app.py", "x = 1\n", uses);
    expect(rules(check)).toEqual(["reportMissingImports", "reportMissingImports"]);
    expect(JSON.stringify(check)).not.toContain(MARKER);
  });

  it("a link inside the environment's node_modules to /etc or a host folder is not followed out of the jail", async () => {
    const host = folder({ "index.d.ts": `export declare const SECRET: "${MARKER}";\n`, "package.json": '{"name": "hostpkg", "types": "index.d.ts"}\n' });
    const copy = folder(
      { "node_modules/calc/package.json": '{"name": "calc", "types": "index.d.ts"}\n', "node_modules/calc/index.d.ts": "export declare const two: number;\n" },
      { "node_modules/etc": "/etc", "node_modules/hostpkg": host },
    );
    const root = folder({ "src/use.ts": "export const one = 1;\n" });
    const s = servers(root);
    s.useEnvironment(Promise.resolve({ roots: [copy], python: [], nodeModules: [{ from: path.join(copy, "node_modules"), at: "node_modules" }] }));
    await Promise.resolve();
    const after = [
      '/// <reference path="../node_modules/etc/passwd" />',
      '/// <reference path="../node_modules/calc/index.d.ts" />',
      'import { SECRET } from "hostpkg";',
      'import { two } from "calc";',
      "export const one: number = SECRET;",
      "export const three: number = two;",
      "",
    ].join("\n");
    const check = await s.check("src/use.ts", "export const one = 1;\n", after);
    expect(check.checked && check.added.map((p) => `${p.line} ${p.rule}`)).toEqual(["1 6053", "3 2307"]);
    expect(JSON.stringify(check)).not.toContain(MARKER);
    expect(JSON.stringify(check)).not.toContain("root:");
  });
});
