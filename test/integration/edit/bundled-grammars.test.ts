import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION_DIR, bundleForNode } from "../../../scripts/lib/build-action.js";
import { BUNDLED_WASM_DIR, grammarWasm, RUNTIME_WASM } from "../../../src/edit/syntax/grammar-files.js";
import { mappedGrammars } from "../../../src/edit/syntax/grammar-for-path.js";
import { runInProcessGroup } from "../../support/run-in-process-group.js";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const COMMITTED = path.join(ROOT, ACTION_DIR, BUNDLED_WASM_DIR);

// A bundle of the parser's loader, as the Action's is bundled, beside a copy of the committed grammars/ and with no
// node_modules above it: what it parses, it read from the compressed copies, the tree-sitter runtime included.
describe("the committed grammars, read beside a bundle as the Action reads them", () => {
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-bundled-grammars-"));
    const probe = path.join(dir, "probe.ts");
    fs.writeFileSync(
      probe,
      [
        `import { loadParser } from ${JSON.stringify(path.join(ROOT, "src/edit/syntax/load-parser.ts"))};`,
        `import { GRAMMAR_SAMPLES } from ${JSON.stringify(path.join(ROOT, "test/unit/edit/grammar-samples.ts"))};`,
        "const seen = {};",
        "for (const [grammar, sample] of Object.entries(GRAMMAR_SAMPLES)) {",
        "  const parser = await loadParser(grammar);",
        "  seen[grammar] = [parser.parse(sample.valid).rootNode.hasError, parser.parse(sample.broken).rootNode.hasError];",
        "}",
        "process.stdout.write(JSON.stringify(seen));",
      ].join("\n"),
    );
    await bundleForNode(probe, path.join(dir, "probe.mjs"));
    fs.cpSync(COMMITTED, path.join(dir, BUNDLED_WASM_DIR), { recursive: true });
  }, 60_000);

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("holds the runtime and every grammar a path maps to, and no other", () => {
    expect(fs.readdirSync(COMMITTED).sort()).toEqual([RUNTIME_WASM, ...mappedGrammars().map(grammarWasm)].map((name) => `${name}.br`).sort());
  });

  it("loads each one and tells valid code from broken code, as the installed grammars do", async () => {
    const { code, out } = await runInProcessGroup(process.execPath, [path.join(dir, "probe.mjs")], {
      cwd: dir,
      env: { PATH: process.env.PATH },
      timeoutMs: 170_000,
    });
    expect(code, out).toBe(0);
    const seen = JSON.parse(out) as Record<string, [boolean, boolean]>;
    expect(Object.keys(seen).sort()).toEqual(mappedGrammars());
    for (const [grammar, [validHasError, brokenHasError]] of Object.entries(seen))
      expect({ grammar, validHasError, brokenHasError }).toEqual({ grammar, validHasError: false, brokenHasError: true });
    // All 29 in one process: 15 s of CPU (dart and toml the most), as from the installed packages, and more on a
    // two-core machine busy with other test files.
  }, 180_000);
});
