import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Parser } from "web-tree-sitter";
import { newSyntaxErrors } from "../../../src/edit/new-syntax-errors.js";
import { parseText } from "../../../src/edit/syntax/load-parser.js";
import { parseDefinitions } from "../../../src/edit/syntax/parse-definitions.js";

// A grammar's own code can throw inside a parse (a scanner's failed assertion, a runtime function its build
// expects), and the parser then throws on every later text. Here a text holding CRASH does that to its parser.
beforeEach(() => {
  const parse = Parser.prototype.parse;
  const failed = new WeakSet<Parser>();
  vi.spyOn(Parser.prototype, "parse").mockImplementation(function (this: Parser, ...args: Parameters<Parser["parse"]>) {
    if (failed.has(this) || String(args[0]).includes("CRASH")) {
      failed.add(this);
      throw new TypeError("resolved is not a function");
    }
    return parse.apply(this, args);
  });
});
afterEach(() => vi.restoreAllMocks());

const good = "def f():\n    return 1\n";

describe("parseText", () => {
  it("answers null when the grammar throws, and parses the next text with a fresh parser", async () => {
    expect(await parseText("python", "x = 1  # CRASH\n")).toBeNull();
    const tree = await parseText("python", good);
    expect(tree!.rootNode.toString()).toContain("function_definition");
    tree!.delete();
  });

  it("parses a text whose parser another text broke while it waited for that parser", async () => {
    const [broken, parsed] = await Promise.all([parseText("python", "x = 1  # CRASH\n"), parseText("python", good)]);
    expect(broken).toBeNull();
    expect(parsed!.rootNode.toString()).toContain("function_definition");
    parsed!.delete();
  });

  it("leaves such a file to BM25 and its edits unchecked, as a file without a grammar, instead of failing the job", async () => {
    expect(await parseDefinitions("def f():  # CRASH\n    return 1\n", "a.py")).toBeNull();
    expect(await parseDefinitions(good, "a.py")).toEqual([expect.objectContaining({ name: "f", kind: "function" })]);
    expect(await newSyntaxErrors("a.py", "x = 1  # CRASH\n", "x = (\n")).toEqual([]);
    expect(await newSyntaxErrors("a.py", "x = 1\n", "x = (\n")).toHaveLength(1);
  });

  it("reads shell scripts whose comments, case and quotes the bash grammar of tree-sitter-wasms threw on", async () => {
    const script = '#!/bin/sh\n# build the docs\nset -e\ncase "$1" in\n  -h) echo \'usage: build.sh [dir]\';;\nesac\nbuild() {\n  local dir="${1:-docs}"\n}\n';
    expect(await parseDefinitions(script, "scripts/build.sh")).toEqual([expect.objectContaining({ name: "build", kind: "function", line: 7 })]);
    expect(await newSyntaxErrors("scripts/build.sh", script, script.replace("esac\n", ""))).toHaveLength(1);
  });
});
