import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openLanguageServers, type LanguageServers } from "../../../src/language-servers/open-language-servers.js";
import { startLanguageServer } from "../../../src/language-servers/start-language-server.js";
import type { LanguageServer } from "../../../src/language-servers/types.js";
import { serverProcesses } from "../../support/server-processes.js";

const LIMITS = { startMs: 60_000, requestMs: 60_000, memoryMb: 512 };
const dirs: string[] = [];
const opened: (LanguageServers | LanguageServer)[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.stop()));
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function checkout(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-lsp-test-"));
  dirs.push(dir);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

function servers(root: string, limits = LIMITS): LanguageServers {
  const s = openLanguageServers(root, limits);
  opened.push(s);
  return s;
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

const PRICES = "import math\n\n\ndef total(items, discount=0):\n    return math.fsum(items) - discount\n\n\ndef cheapest(items):\n    return min(items)\n";
const CART = "from shop.prices import total\n\n\ndef checkout(items):\n    return total(items)\n";

describe("the language servers of a job", () => {
  it("Pyright reports the errors a change adds, by rule, and not those the file already had", async () => {
    const root = checkout({ "shop/__init__.py": "", "shop/prices.py": `${PRICES}\nprint(undefined_before)\n`, "shop/cart.py": CART });
    const before = fs.readFileSync(path.join(root, "shop/prices.py"), "utf8");
    const after = before.replace("math.fsum(items)", "fsum(items) + cheapest(items, 1)").replace("import math\n", "");
    const s = servers(root);
    const check = await s.check("shop/prices.py", before, after);
    expect(check).toMatchObject({ checked: true, language: "python" });
    if (!check.checked) return;
    expect(check.added.map((p) => `${p.line} ${p.rule} ${p.message}`)).toEqual([
      '4 reportUndefinedVariable "fsum" is not defined',
      "4 reportCallIssue Expected 1 positional argument",
    ]);
    // A later attempt at the file is judged against the same untouched text (whose diagnostics are remembered).
    const later = await s.check("shop/prices.py", before, before.replace("min(items)", "min(items) + cheapest()"));
    expect(later.checked && later.added.map((p) => `${p.line} ${p.rule} ${p.message}`)).toEqual(['9 reportCallIssue Argument missing for parameter "items"']);
    // The checkout is only read.
    expect(fs.readFileSync(path.join(root, "shop/prices.py"), "utf8")).toBe(before);
  });

  it("Pyright judges a later attempt against the attempt's own definitions, after a look at the text on disk", async () => {
    // shop/make.py builds a Basket; a look at shop/basket.py as on disk (the callers of `add`) has Pyright infer what
    // make() returns from the old Basket. An attempt that gives `add` a second parameter, and calls it so through make(),
    // adds no error: Pyright must not judge it by the old `add` (one parameter: "Expected 1 positional argument").
    const basket = "from shop.make import make\n\n\nclass Basket:\n    def add(self, item):\n        return item\n\n\nmake().add(1)\n";
    const root = checkout({
      "shop/__init__.py": "",
      "shop/basket.py": basket,
      "shop/make.py": "def make():\n    from shop.basket import Basket\n\n    return Basket()\n",
    });
    const s = servers(root);
    const first = await s.check("shop/basket.py", basket, basket.replace("add(1)", "add(2)"));
    expect(first.checked && first.added).toEqual([]);
    expect(Array.isArray(await s.references("shop/basket.py", basket, { line: 4, character: 8 }))).toBe(true);
    const later = await s.check("shop/basket.py", basket, basket.replace("def add(self, item):", "def add(self, item, count):").replace("add(1)", "add(1, 2)"));
    expect(later.checked && later.added).toEqual([]);
  });

  it("Pyright finds the uses of a definition in other files", async () => {
    const root = checkout({ "shop/__init__.py": "", "shop/prices.py": PRICES, "shop/cart.py": CART });
    const found = await servers(root).references("shop/prices.py", PRICES, { line: 3, character: 4 });
    expect(Array.isArray(found)).toBe(true);
    const where = (found as { uri: string; range: { start: { line: number } } }[]).map(
      (l) => `${path.relative(root, new URL(l.uri).pathname)}:${l.range.start.line + 1}`,
    );
    expect(where.sort()).toEqual(["shop/cart.py:1", "shop/cart.py:5"]);
  });

  it("the TypeScript server reports a call with one argument too many by its code", async () => {
    const source = 'export function greet(name: string): string {\n  return "hi " + name;\n}\nexport const said = greet("a");\n';
    const root = checkout({ "src/greet.ts": source, "tsconfig.json": '{"compilerOptions": {"strict": true}}\n' });
    const check = await servers(root).check("src/greet.ts", source, source.replace('greet("a")', 'greet("a", 2)'));
    expect(check).toMatchObject({ checked: true, language: "typescript" });
    if (check.checked) expect(check.added.map((p) => `${p.line} ${p.rule} ${p.message}`)).toEqual(["4 2554 Expected 1 arguments, but got 2."]);
  });

  it("a server that is too slow is stopped, and the job's later checks of that language are skipped at once", async () => {
    const root = checkout({ "a.py": "x = 1\n" });
    const s = servers(root, { ...LIMITS, requestMs: 1 });
    const first = await s.check("a.py", "x = 1\n", "x = 2\n");
    expect(first).toEqual({ checked: false, why: "the python language server did not finish checking a.py within 1 ms" });
    const started = performance.now();
    expect(await s.check("a.py", "x = 1\n", "x = 3\n")).toEqual(first);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("a server that cannot start makes the check say why, and a file no server checks is not checked", async () => {
    const s = servers(path.join(os.tmpdir(), "magis-no-such-checkout"));
    const check = await s.check("a.py", "", "x = 1\n");
    expect(check.checked).toBe(false);
    if (!check.checked) expect(check.why).toMatch(/^the python language server (could not be started|could not start|exited)/);
    expect(await s.check("README.md", "a", "b")).toEqual({ checked: false, why: "no language server checks files like README.md" });
  });

  it("stopping a server kills every process of its jail and removes what it left in its temp folder", async () => {
    const root = checkout({ "a.ts": "export const a = 1;\n" });
    const server = await startLanguageServer(root, "typescript", LIMITS);
    opened.push(server);
    await server.diagnose("a.ts", ["export const a = 1;\n"]);
    expect(groupAlive(server.pid)).toBe(true);
    // The TypeScript server runs tsserver as a child: both have the server's own temp folder as TMPDIR.
    expect(serverProcesses(server.temp).length).toBeGreaterThanOrEqual(2);
    // tsserver's cancellation folders (`<32 hex digits>/tscancellation…`) go there rather than into the system's.
    expect(path.dirname(server.temp)).toBe(os.tmpdir());
    expect(fs.readdirSync(server.temp).some((entry) => /^[0-9a-f]{32}$/.test(entry))).toBe(true);
    await server.stop();
    await expect.poll(() => groupAlive(server.pid), { timeout: 5_000 }).toBe(false);
    await expect.poll(() => serverProcesses(server.temp), { timeout: 5_000 }).toEqual([]);
    expect(fs.existsSync(server.temp)).toBe(false);
  });
});

describe("a repository cannot make a language server run its programs", () => {
  const marker = (root: string) => path.join(root, "..", `${path.basename(root)}-ran`);
  const hostile = (root: string) => `#!/bin/sh\necho ran > "${marker(root)}"\n`;
  const script = (root: string, file: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), hostile(root), { mode: 0o755 });
  };

  it("Pyright runs no interpreter, whatever pyrightconfig.json or pyproject.toml name", async () => {
    const root = checkout({
      "pyrightconfig.json": JSON.stringify({ venvPath: ".", venv: "evil", pythonPath: "evil/bin/python" }),
      "pyproject.toml": '[tool.pyright]\nvenvPath = "."\nvenv = "evil"\npythonPath = "python3"\n',
      "a.py": "import os\nprint(os.sep)\n",
    });
    for (const file of ["evil/bin/python", "evil/bin/python3", "python3", "python", "bin/python3"]) script(root, file);
    dirs.push(marker(root));

    // The planted interpreter works, and Pyright runs the interpreter it is given: the check below would see it.
    execFileSync(path.join(root, "evil/bin/python"));
    expect(fs.existsSync(marker(root))).toBe(true);
    fs.rmSync(marker(root));
    const require = createRequire(import.meta.url);
    try {
      execFileSync(process.execPath, [require.resolve("pyright/index.js"), "--pythonpath", path.join(root, "evil/bin/python"), "a.py"], {
        cwd: root,
        stdio: "ignore",
      });
    } catch {
      // Pyright's exit status says nothing here; the marker does.
    }
    expect(fs.existsSync(marker(root))).toBe(true);
    fs.rmSync(marker(root));

    const s = servers(root);
    const check = await s.check("a.py", "import os\nprint(os.sep)\n", "import os\nprint(os.sep, sys)\n");
    expect(check.checked).toBe(true);
    await s.references("a.py", "import os\nprint(os.sep)\n", { line: 0, character: 7 });
    expect(fs.existsSync(marker(root))).toBe(false);
  });

  it("the TypeScript server runs our tsserver, not the repository's, and installs no types", async () => {
    const root = checkout({
      "node_modules/typescript/package.json": '{"name": "typescript", "version": "5.9.3"}\n',
      "tsconfig.json": JSON.stringify({ compilerOptions: { plugins: [{ name: "evil-plugin" }] }, typeAcquisition: { enable: true, include: ["left-pad"] } }),
      "node_modules/evil-plugin/package.json": '{"name": "evil-plugin", "main": "index.js"}\n',
      "a.ts": "export const a: number = 1;\n",
    });
    const write = `require("fs").writeFileSync(${JSON.stringify(marker(root))}, "ran");\n`;
    fs.mkdirSync(path.join(root, "node_modules/typescript/lib"), { recursive: true });
    fs.writeFileSync(path.join(root, "node_modules/typescript/lib/tsserver.js"), write);
    fs.writeFileSync(path.join(root, "node_modules/typescript/lib/typescript.js"), write);
    fs.writeFileSync(path.join(root, "node_modules/evil-plugin/index.js"), write);
    dirs.push(marker(root));

    const check = await servers(root).check("a.ts", "export const a: number = 1;\n", 'export const a: number = "1";\n');
    expect(check).toMatchObject({ checked: true, added: [{ rule: "2322" }] });
    expect(fs.existsSync(marker(root))).toBe(false);
  });
});
