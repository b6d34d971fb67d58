import { expect, it, vi } from "vitest";

// Tasks of one plan step run concurrently, so files in different languages are checked at the same time and their
// grammars load at once. Two grammars loading together used to break each other now and then ("bad export type
// for 'tree_sitter_javascript_external_scanner_create'"), so this loads them together in fresh module copies often
// enough that a race shows up.
it("loads several grammars at once without one breaking another", async () => {
  for (let round = 0; round < 50; round++) {
    vi.resetModules();
    const { loadParser } = await import("../../../src/edit/syntax/load-parser.js");
    const parsers = await Promise.all(["javascript", "python", "typescript", "go"].map((grammar) => loadParser(grammar)));
    for (const parser of parsers) expect(parser.language).not.toBeNull();
  }
}, 120_000);
