import { describe, expect, it } from "vitest";
import { newSyntaxErrors } from "../../../src/edit/new-syntax-errors.js";

const PY_BEFORE = "def f(x):\n    return x\n\n\ndef g():\n    pass\n";

describe("newSyntaxErrors", () => {
  it("reports an error the edit added, with its place", async () => {
    const after = "def f(x):\n    return (x\n\n\ndef g():\n    pass\n";
    const errors = await newSyntaxErrors("pkg/mod.py", PY_BEFORE, after);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatchObject({ line: 2, column: 5 });
    expect(errors[0]!.message).toMatch(/^syntax error: /);
  });

  it("does not blame an error the file already had, even when lines shift", async () => {
    const before = "def f(x:\n    return x\n";
    const after = "import os\n\n\ndef f(x:\n    return x\n";
    expect(await newSyntaxErrors("a.py", before, after)).toEqual([]);
  });

  it("reports a second error of a kind the file already had", async () => {
    const before = "const a = ;\n";
    const after = "const a = ;\nconst b = ;\n";
    const errors = await newSyntaxErrors("a.ts", before, after);
    expect(errors.map((e) => e.line)).toEqual([2]);
  });

  it("reports a missing token in TypeScript", async () => {
    const errors = await newSyntaxErrors("src/a.ts", "function f(a: number) {\n  return a;\n}\n", "function f(a: number {\n  return a;\n}\n");
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]!.line).toBe(1);
  });

  it("reports an unclosed block in Go", async () => {
    const errors = await newSyntaxErrors("main.go", "package main\n\nfunc main() {\n}\n", "package main\n\nfunc main() {\n\tif true {\n}\n");
    expect(errors.length).toBeGreaterThan(0);
  });

  it("finds nothing in a valid change", async () => {
    expect(await newSyntaxErrors("a.js", "const a = 1;\n", "const a = 1;\nconst b = a + 1;\n")).toEqual([]);
  });

  it("does not block files without a grammar", async () => {
    expect(await newSyntaxErrors("notes.txt", "ok\n", "((( {{{\n")).toEqual([]);
    expect(await newSyntaxErrors("config.yaml", "a: 1\n", "a: [\n")).toEqual([]);
  });
});
