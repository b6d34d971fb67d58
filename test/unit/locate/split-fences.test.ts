import { describe, expect, it } from "vitest";
import { splitFences } from "../../../src/pipeline/locate/split-fences.js";

describe("splitFences", () => {
  it("takes fenced blocks out of the prose, fences included", () => {
    const text = "Before\n```python\nx = 1\n```\nbetween\n~~~\ny = 2\n~~~\nafter";
    expect(splitFences(text)).toEqual({ code: ["x = 1\n", "y = 2\n"], prose: "Before\n \nbetween\n \nafter" });
  });

  it("runs an unclosed block to the end of the text", () => {
    expect(splitFences("See\n```\nTraceback …\n  File x")).toEqual({ code: ["Traceback …\n  File x"], prose: "See\n " });
  });

  it("closes a block at the next fence of its own kind only", () => {
    expect(splitFences("```\na ~~~ b\n```\nc")).toEqual({ code: ["a ~~~ b\n"], prose: " \nc" });
  });

  it("reads three backticks inside a line as an opener, as GitHub's loose issue text has it", () => {
    expect(splitFences("why does ```f()``` fail?\ncode\n```\nend")).toEqual({ code: ["code\n"], prose: "why does  \nend" });
  });

  it("opens no block on the last line, which has no line break after an opener", () => {
    expect(splitFences("text\n```a```b```")).toEqual({ code: [], prose: "text\n```a```b```" });
    expect(splitFences("```".repeat(50_000))).toEqual({ code: [], prose: "```".repeat(50_000) });
  });

  it("keeps text without fences as it is", () => {
    expect(splitFences("")).toEqual({ code: [], prose: "" });
    expect(splitFences("plain `inline` text\n")).toEqual({ code: [], prose: "plain `inline` text\n" });
  });
});
