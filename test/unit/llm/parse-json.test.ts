import { describe, expect, it } from "vitest";
import { parseJsonLeniently } from "../../../src/llm/parse-json.js";

const value = (text: string, accept?: (v: unknown) => boolean) => {
  const result = parseJsonLeniently(text, accept);
  if (!result.ok) throw new Error(result.error);
  return result.value;
};

describe("parseJsonLeniently", () => {
  it("reads clean JSON objects and arrays", () => {
    expect(value('{"a": 1}')).toEqual({ a: 1 });
    expect(value(" [1, 2] \n")).toEqual([1, 2]);
  });

  it("reads JSON inside a code fence, with or without a language tag", () => {
    expect(value('Here you go:\n```json\n{"ok": true}\n```\nAnything else?')).toEqual({ ok: true });
    expect(value('```\n["x"]\n```')).toEqual(["x"]);
  });

  it("reads the first balanced object after leading prose and before trailing prose", () => {
    expect(value('Sure. The answer is {"path": "a.ts", "lines": [1, 2]} as requested.')).toEqual({ path: "a.ts", lines: [1, 2] });
  });

  it("ignores brackets inside strings, including escaped quotes", () => {
    expect(value('Result: {"code": "if (a) { b[0] = \\"}\\"; }"} done')).toEqual({ code: 'if (a) { b[0] = "}"; }' });
  });

  it("drops a <think> block of reasoning models", () => {
    expect(value('<think>maybe {"wrong": 1}</think>\n{"right": 2}')).toEqual({ right: 2 });
  });

  it("keeps a <think> inside a JSON string: only a draft at the very start of the answer is dropped", () => {
    expect(value('{"comment": "strip <think>x</think> first"}')).toEqual({ comment: "strip <think>x</think> first" });
    expect(value('<think>a</think>\n<think>b</think>\n{"code": "<think>c</think>"}')).toEqual({ code: "<think>c</think>" });
  });

  it("skips a broken candidate and takes the next one that parses", () => {
    expect(value('{not json} then {"a": 1}')).toEqual({ a: 1 });
  });

  it("prefers the candidate the caller accepts, else the first that parses", () => {
    const isObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
    expect(value('See [1] and {"a": 1}', isObject)).toEqual({ a: 1 });
    expect(value("See [1] and [2]", isObject)).toEqual([1]);
  });

  it("explains what is missing when no JSON can be read", () => {
    expect(parseJsonLeniently("")).toEqual({ ok: false, error: "the answer was empty; expected one JSON object" });
    expect(parseJsonLeniently("I cannot help with that.")).toEqual({ ok: false, error: "the answer holds no JSON object or array; expected one JSON object" });
    const truncated = parseJsonLeniently('{"relevant": tr');
    expect(truncated.ok).toBe(false);
    expect(!truncated.ok && truncated.error).toMatch(/^the answer holds no valid JSON \(/);
  });
});
