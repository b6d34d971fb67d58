import { describe, expect, it } from "vitest";
import type { NamedSymbol } from "../../../src/pipeline/locate/build-query.js";
import type { Definition } from "../../../src/edit/syntax/parse-definitions.js";
import { DEFINITION_WEIGHTS, scoreDefinitions } from "../../../src/pipeline/locate/score-definitions.js";

const def = (name: string, kind: Definition["kind"], parent?: string): Definition => ({
  name,
  kind,
  line: 1,
  endLine: 2,
  signature: name,
  ...(parent ? { parent } : {}),
});
const rst: Definition[] = [
  def("RST", "class"),
  def("__init__", "method", "RST"),
  def("write", "method", "RST"),
  def("read_rst", "function"),
  def("SEPARATOR", "name"),
];
const once = () => 1;

describe("scoreDefinitions", () => {
  // One row per weight: what the issue names, how strongly, and the score it earns the file above.
  const table: Array<[string, NamedSymbol, number]> = [
    ["a method named with its class (qualified)", { name: "__init__", owner: "RST", strength: 2 }, DEFINITION_WEIGHTS.qualified * 2],
    ["the class itself (class)", { name: "RST", strength: 2 }, DEFINITION_WEIGHTS.class * 2],
    ["a function (function)", { name: "read_rst", strength: 1 }, DEFINITION_WEIGHTS.function],
    ["a method named alone (function)", { name: "write", strength: 1 }, DEFINITION_WEIGHTS.function],
    ["a method named with another class (function, not qualified)", { name: "write", owner: "Table", strength: 1 }, DEFINITION_WEIGHTS.function],
    ["a top-level name (name)", { name: "SEPARATOR", strength: 1 }, DEFINITION_WEIGHTS.name],
    ["a name the file does not define", { name: "Table", strength: 2 }, 0],
    ["a name that differs in case", { name: "rst", strength: 2 }, 0],
  ];
  it.each(table)("%s", (_, symbol, expected) => {
    expect(scoreDefinitions(rst, [symbol], once)).toBe(expected);
  });

  it("ranks the class's definition above a function's, and a qualified method above both", () => {
    expect(DEFINITION_WEIGHTS.qualified).toBeGreaterThan(DEFINITION_WEIGHTS.class);
    expect(DEFINITION_WEIGHTS.class).toBeGreaterThan(DEFINITION_WEIGHTS.function);
    expect(DEFINITION_WEIGHTS.function).toBeGreaterThan(DEFINITION_WEIGHTS.name);
  });

  it("divides by how many files define the name (by the class's definers for a qualified method)", () => {
    const definers = (name: string) => ({ __init__: 40, RST: 1, write: 4 })[name] ?? 1;
    expect(scoreDefinitions(rst, [{ name: "write", strength: 1 }], definers)).toBe(DEFINITION_WEIGHTS.function / 4);
    expect(scoreDefinitions(rst, [{ name: "__init__", owner: "RST", strength: 1 }], definers)).toBe(DEFINITION_WEIGHTS.qualified);
    expect(scoreDefinitions(rst, [{ name: "__init__", strength: 1 }], definers)).toBe(DEFINITION_WEIGHTS.function / 40);
  });

  it("adds the symbols up, and takes custom weights", () => {
    const symbols: NamedSymbol[] = [
      { name: "RST", strength: 1 },
      { name: "read_rst", strength: 1 },
    ];
    expect(scoreDefinitions(rst, symbols, once)).toBe(DEFINITION_WEIGHTS.class + DEFINITION_WEIGHTS.function);
    expect(scoreDefinitions(rst, symbols, once, { qualified: 0, class: 10, function: 0, name: 0 })).toBe(10);
  });
});
