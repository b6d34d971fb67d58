import { describe, expect, it } from "vitest";
import { grammarForPath } from "../../../src/edit/syntax/grammar-for-path.js";
import { loadParser } from "../../../src/edit/syntax/load-parser.js";
import { GRAMMAR_SAMPLES } from "./grammar-samples.js";

describe("every mapped grammar loads and tells valid code from broken code", () => {
  for (const [grammar, sample] of Object.entries(GRAMMAR_SAMPLES)) {
    it(grammar, async () => {
      expect(grammarForPath(sample.path)).toBe(grammar);
      const parser = await loadParser(grammar);
      expect(parser.parse(sample.valid)!.rootNode.hasError).toBe(false);
      expect(parser.parse(sample.broken)!.rootNode.hasError).toBe(true);
    });
  }

  it("covers every grammar the extension map names", () => {
    const mapped = new Set(
      [
        ".py",
        ".js",
        ".ts",
        ".tsx",
        ".go",
        ".java",
        ".rs",
        ".c",
        ".h",
        ".rb",
        ".php",
        ".cs",
        ".sh",
        ".json",
        ".css",
        ".html",
        ".kt",
        ".scala",
        ".swift",
        ".dart",
        ".ex",
        ".ml",
        ".toml",
        ".zig",
        ".sol",
        ".vue",
        ".el",
        ".res",
        ".erb",
      ].map((ext) => grammarForPath(`x${ext}`)),
    );
    expect([...mapped].sort()).toEqual(Object.keys(GRAMMAR_SAMPLES).sort());
  });

  it("maps C and C++ headers to the C++ grammar and unknown files to none", () => {
    expect(grammarForPath("include/a.h")).toBe("cpp");
    expect(grammarForPath("Rakefile")).toBe("ruby");
    expect(grammarForPath("README.md")).toBeNull();
    expect(grammarForPath("a.yaml")).toBeNull();
  });
});
