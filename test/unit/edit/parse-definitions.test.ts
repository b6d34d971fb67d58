import { describe, expect, it } from "vitest";
import { parseDefinitions, type Definition } from "../../../src/edit/syntax/parse-definitions.js";

const brief = (definitions: Definition[] | null) => definitions?.map((d) => `${d.kind} ${d.parent ? `${d.parent}.` : ""}${d.name} ${d.line}-${d.endLine}`);

describe("parseDefinitions", () => {
  it("reads Python classes with their bases, methods, nested functions and top-level names, with line ranges", async () => {
    const text = [
      "# héllo: a non-ASCII comment must not shift what follows",
      "DEFAULT = 1",
      "class RST(FixedWidth, core.BaseReader, metaclass=Meta):",
      '    """Doc."""',
      "    @property",
      "    def header_rows(self, rows: list[str] | None = None) -> int:",
      "        def inner():",
      "            pass",
      "        return 1",
      "",
      "async def read_rst(path):",
      "    local = 2",
      "    return local",
    ].join("\n");
    const definitions = await parseDefinitions(text, "astropy/io/ascii/rst.py");
    expect(brief(definitions)).toEqual([
      "name DEFAULT 2-2",
      "class RST 3-9",
      "method RST.header_rows 6-9",
      "function header_rows.inner 7-8",
      "function read_rst 11-13",
    ]);
    expect(definitions![1]).toMatchObject({ bases: ["FixedWidth", "core.BaseReader"], signature: "class RST(FixedWidth, core.BaseReader, metaclass=Meta)" });
    expect(definitions![2]!.signature).toBe("def header_rows(self, rows: list[str] | None = None) -> int");
  });

  // One row per language family: a class-like and the method that belongs to it, however the language writes it.
  const table: Array<[string, string, string[]]> = [
    [
      "a.ts",
      "export class A extends B implements C {\n  m(x: number): void {}\n}\nexport function f(): number { return 1 }\ntype T = string;\n",
      ["class A 1-3", "method A.m 2-2", "function f 4-4", "class T 5-5"],
    ],
    [
      "a.go",
      "package m\ntype S struct { a int }\nfunc (s *S) Close() error { return nil }\nfunc New() *S { return nil }\n",
      ["class S 2-2", "method S.Close 3-3", "function New 4-4"],
    ],
    ["a.rs", "struct S { a: i32 }\nimpl S {\n  fn m(&self) -> i32 { 1 }\n}\nfn f() {}\n", ["class S 1-1", "method S.m 3-3", "function f 5-5"]],
    ["A.java", "class A extends B {\n  int m(int x) { return 1; }\n}\n", ["class A 1-3", "method A.m 2-2"]],
    ["a.cpp", "class A : public B { };\nint A::m(int x) { return 1; }\nint f() { return 0; }\n", ["class A 1-1", "method A.m 2-2", "function f 3-3"]],
    ["a.rb", "module M\n  class A < B\n    def m(x)\n    end\n  end\nend\n", ["class M 1-6", "class M.A 2-5", "method A.m 3-4"]],
    ["a.c", "struct s { int a; };\nstatic int parse(const char *p) { return 0; }\n", ["class s 1-1", "function parse 2-2"]],
    ["A.cs", "class A : B {\n  int M(int x) { return 1; }\n}\n", ["class A 1-3", "method A.M 2-2"]],
    ["a.kt", "class A : B() {\n  fun m(x: Int): Int = x\n}\nfun String.f(): Int = 1\n", ["class A 1-3", "method A.m 2-2", "function f 4-4"]],
    ["a.swift", "class A: B {\n  func m(x: Int) -> Int { x }\n}\nfunc f() {}\n", ["class A 1-3", "method A.m 2-2", "function f 4-4"]],
    ["a.scala", "class A extends B {\n  def m(x: Int): Int = x\n}\nobject O\n", ["class A 1-3", "method A.m 2-2", "class O 4-4"]],
    ["a.dart", "class A extends B {\n  int m(int x) { return x; }\n}\nint f() { return 1; }\n", ["class A 1-3", "method A.m 2-2", "function f 4-4"]],
    ["a.php", "<?php\nclass A extends B {\n  public function m($x) { return 1; }\n}\nfunction f() {}\n", ["class A 2-4", "method A.m 3-3", "function f 5-5"]],
    ["a.ex", "defmodule M do\n  def m(x) when x > 0 do\n    x\n  end\n  defp f, do: 1\nend\n", ["class M 1-6", "method M.m 2-4", "method M.f 5-5"]],
    [
      "a.ml",
      "module M = struct\n  let m x = x\nend\nlet rec f a = f a\nlet limit = 3\n",
      ["class M 1-3", "method M.m 2-2", "function f 4-4", "name limit 5-5"],
    ],
    ["a.sol", "contract A is B {\n  function m(uint x) public returns (uint) { return x; }\n}\n", ["class A 1-3", "method A.m 2-2"]],
    ["a.el", "(defun magis-f (x) x)\n", ["function magis-f 1-1"]],
    ["a.sh", "f() {\n  echo hi\n}\nfunction g { echo; }\n", ["function f 1-3", "function g 4-4"]],
  ];
  it.each(table)("reads %s", async (path, text, expected) => {
    expect(brief(await parseDefinitions(text, path))).toEqual(expected);
  });

  it("gives a definition the parser could not read whole its first line as its signature, not the text after it", async () => {
    const broken = await parseDefinitions("class A(:\n    def f(self:\n        pass\n\nclass B:\n    pass\n", "a.py");
    expect(broken![0]).toMatchObject({ name: "A", kind: "class", signature: "class A(" });
  });

  it("walks code nested thousands deep without running out of stack", async () => {
    const text = `function deep() {\n${"if (a) {".repeat(5000)}${"}".repeat(5000)}\n}\nfunction after() {}\n`;
    expect(brief(await parseDefinitions(text, "deep.js"))).toEqual(["function deep 1-3", "function after 4-4"]);
  });

  it("leaves files of languages without a shipped grammar, and data files, to BM25 alone", async () => {
    expect(await parseDefinitions("def f(): pass\n", "notes.txt")).toBeNull();
    expect(await parseDefinitions('{"a": 1}', "package.json")).toBeNull();
  });
});
