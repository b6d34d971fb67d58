import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { openLanguageServers, type LanguageServers } from "../../../src/language-servers/open-language-servers.js";
import { describeCallersForTask } from "../../../src/pipeline/code/find-callers.js";
import type { StageContext } from "../../../src/pipeline/types.js";

const LIMITS = { startMs: 60_000, requestMs: 60_000, memoryMb: 512 };
const dirs: string[] = [];
const opened: LanguageServers[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.stop()));
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

// A secret of the host, in a folder beside the checkout (a valid Python package name, so that an import can climb to it).
const MARKER = `sk-host-${crypto.randomBytes(8).toString("hex")}`;

function hostFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis_host_"));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, "x.py"), `SECRET = "${MARKER}"\n`);
  fs.writeFileSync(path.join(dir, "y.pyi"), `from typing import Literal\nSECRET: Literal["${MARKER}"]\n`);
  fs.writeFileSync(path.join(dir, "x.ts"), `export const SECRET = "${MARKER}";\n`);
  fs.mkdirSync(path.join(dir, "env/lib/python3.11/site-packages"), { recursive: true });
  fs.writeFileSync(path.join(dir, "env/lib/python3.11/site-packages/z.py"), `SECRET = "${MARKER}"\n`);
  fs.writeFileSync(path.join(dir, "uses.py"), `from shop.prices import total\n\ntotal(["${MARKER}"])\n`);
  return dir;
}

/** A checkout of `files`, and of `links` (path → target) made as symbolic links. */
function checkout(files: Record<string, string>, links: Record<string, string> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-lsp-test-"));
  dirs.push(dir);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  for (const [link, target] of Object.entries(links)) fs.symlinkSync(target, path.join(dir, link));
  return dir;
}

function servers(root: string): LanguageServers {
  const s = openLanguageServers(root, LIMITS);
  opened.push(s);
  return s;
}

/** Each way a repository could point a server at the host file, with the import that reads it. */
const PYTHON: [string, (host: string) => { files: Record<string, string>; links?: Record<string, string>; from: string }][] = [
  ["pyrightconfig.json's extraPaths", (host) => ({ files: { "pyrightconfig.json": JSON.stringify({ extraPaths: [host] }) }, from: "x" })],
  ["pyproject.toml's [tool.pyright] extraPaths", (host) => ({ files: { "pyproject.toml": `[tool.pyright]\nextraPaths = ["${host}"]\n` }, from: "x" })],
  ["pyrightconfig.json's stubPath", (host) => ({ files: { "pyrightconfig.json": JSON.stringify({ stubPath: host }) }, from: "y" })],
  ["pyrightconfig.json's venvPath and venv", (host) => ({ files: { "pyrightconfig.json": JSON.stringify({ venvPath: host, venv: "env" }) }, from: "z" })],
  ["a link to the file", (host) => ({ files: {}, links: { "linked.py": path.join(host, "x.py") }, from: "linked" })],
  ["a link to its folder", (host) => ({ files: {}, links: { vendor: host }, from: "vendor.x" })],
  ["a relative import that climbs out of the checkout", (host) => ({ files: {}, from: `..${path.basename(host)}.x` })],
];

const TYPESCRIPT: [string, (host: string) => { files: Record<string, string>; links?: Record<string, string>; from: string }][] = [
  [
    "tsconfig.json's paths",
    (host) => ({ files: { "tsconfig.json": JSON.stringify({ compilerOptions: { baseUrl: ".", paths: { "@host/*": [`${host}/*`] } } }) }, from: "@host/x" }),
  ],
  ["an absolute import", (host) => ({ files: {}, from: path.join(host, "x") })],
  ["a link to the file", (host) => ({ files: {}, links: { "linked.ts": path.join(host, "x.ts") }, from: "./linked" })],
];

describe("a repository cannot make a language server read a host file into what it reports", () => {
  it.each(PYTHON)("Pyright, through %s", async (_way, plant) => {
    const { files, links, from } = plant(hostFolder());
    const root = checkout({ ...files, "a.py": "" }, links);
    const before = `from ${from} import SECRET\n`;
    // Were SECRET read, its literal type would be quoted in the error this adds.
    const check = await servers(root).check("a.py", before, `${before}y: int = SECRET\n`);
    expect(check.checked).toBe(true);
    expect(JSON.stringify(check)).not.toContain(MARKER);
  });

  it.each(TYPESCRIPT)("the TypeScript server, through %s", async (_way, plant) => {
    const { files, links, from } = plant(hostFolder());
    const root = checkout({ ...files, "a.ts": "" }, links);
    const before = `import { SECRET } from "${from}";\nexport const s = SECRET;\n`;
    const check = await servers(root).check("a.ts", before, `${before}export const n: "none" = SECRET;\n`);
    expect(check.checked).toBe(true);
    expect(JSON.stringify(check)).not.toContain(MARKER);
  });

  it("Pyright finds no use in a linked host file, and the Developer is shown none", async () => {
    const host = hostFolder();
    const prices = "def total(items):\n    return sum(items)\n";
    const cart = "from shop.prices import total\n\n\ndef checkout(items):\n    return total(items)\n";
    const root = checkout({ "shop/__init__.py": "", "shop/prices.py": prices, "shop/cart.py": cart }, { "shop/linked.py": path.join(host, "uses.py") });
    const s = servers(root);
    const found = await s.references("shop/prices.py", prices, { line: 0, character: 4 });
    expect(Array.isArray(found)).toBe(true);
    const where = (found as { uri: string; range: { start: { line: number } } }[]).map(
      (l) => `${path.relative(root, fileURLToPath(l.uri))}:${l.range.start.line + 1}`,
    );
    expect(where.sort()).toEqual(["shop/cart.py:1", "shop/cart.py:5"]);
    const ctx = { root, config: parseConfig({}), languageServers: s } as unknown as StageContext;
    const shown = await describeCallersForTask(ctx, "shop/prices.py", prices, ["`total`"]);
    expect(shown).toContain("shop/cart.py:5");
    expect(shown).not.toContain(MARKER);
  });

  it("Pyright still honours the repository's own settings, search paths and links inside the checkout", async () => {
    const root = checkout(
      {
        "pyproject.toml": '[tool.pyright]\nextraPaths = ["vendor"]\nreportCallIssue = "none"\n',
        "vendor/inside.py": 'VENDORED = "vendored-value"\n',
        "real.py": 'LINKED = "linked-value"\n',
        "a.py": "from inside import VENDORED\nfrom alias import LINKED\n\n\ndef f(a):\n    return a\n",
      },
      { "alias.py": "real.py" },
    );
    const before = fs.readFileSync(path.join(root, "a.py"), "utf8");
    const check = await servers(root).check("a.py", before, `${before}x: int = VENDORED\ny: int = LINKED\nf(1, 2)\n`);
    expect(check.checked).toBe(true);
    if (!check.checked) return;
    const said = check.added.map((p) => `${p.rule} ${p.message.split("\n")[0]}`);
    expect(said).toEqual([
      `reportAssignmentType Type "Literal['vendored-value']" is not assignable to declared type "int"`,
      `reportAssignmentType Type "Literal['linked-value']" is not assignable to declared type "int"`,
    ]);
  });
});
