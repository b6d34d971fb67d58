import { describe, expect, it } from "vitest";
import { readScriptAnswer, SCRIPT_ANSWER_ASKED, scriptAnswer } from "../../../src/llm/read-script-answer.js";
import { scriptAnswer as scriptedAnswer } from "../../support/script-answer.js";

const SCRIPT = "from shop.cart import total\n\nassert total([]) == 0\n";
const FIELDS = ["expected: ZeroDivisionError raised by total()", "path: reproduce_cart.py", "command: python3 reproduce_cart.py"];
const answer = (...lines: string[]): string => lines.join("\n");
const WANT = { expected: "ZeroDivisionError raised by total()", path: "reproduce_cart.py", command: "python3 reproduce_cart.py", content: SCRIPT };
const problemOf = (raw: string): string => {
  const read = readScriptAnswer(raw);
  if (read.ok) throw new Error(`expected a refusal, got ${JSON.stringify(read.value)}`);
  return read.problem;
};

describe("readScriptAnswer", () => {
  it("reads the key lines and the fenced script, which keeps its blank lines and ends with a newline", () => {
    expect(readScriptAnswer(answer(...FIELDS, "", "```python", "from shop.cart import total", "", "assert total([]) == 0", "```"))).toEqual({
      ok: true,
      value: WANT,
    });
  });

  it("takes prose around the fields, the keys in any order and case, and backticks around values", () => {
    const raw = answer(
      "The total divides by the count, so an empty cart shows it.",
      "Path: `reproduce_cart.py`",
      "**command**: `python3 reproduce_cart.py`",
      "expected: ZeroDivisionError raised by total()",
      "```",
      "from shop.cart import total",
      "",
      "assert total([]) == 0",
      "```",
      "Run it from the root.",
    );
    expect(readScriptAnswer(raw)).toEqual({ ok: true, value: WANT });
  });

  it("keeps a <think> inside the script and the fields: only a draft at the very start of the answer is left out", () => {
    const script = ["```python", "from shop.text import clean", "", 'assert clean("<think>a</think>b") == "b"', "```"];
    const content = 'from shop.text import clean\n\nassert clean("<think>a</think>b") == "b"\n';
    expect(readScriptAnswer(answer(...FIELDS, ...script))).toEqual({ ok: true, value: { ...WANT, content } });
    const drafted = answer(
      "<think>",
      "command: wrong",
      "```",
      "wrong",
      "```",
      "</think>",
      "expected: <think>a</think>b kept",
      FIELDS[1]!,
      FIELDS[2]!,
      ...script,
    );
    expect(readScriptAnswer(drafted)).toEqual({ ok: true, value: { ...WANT, expected: "<think>a</think>b kept", content } });
  });

  it("reads a script holding ``` lines inside a four-backtick fence, and CRLF answers", () => {
    const raw = answer(...FIELDS, "````", 'DOC = """', "```", "x", "```", '"""', "````");
    expect(readScriptAnswer(raw)).toMatchObject({ ok: true, value: { content: 'DOC = """\n```\nx\n```\n"""\n' } });
    expect(readScriptAnswer(answer(...FIELDS, "```", "print(1)", "```").replace(/\n/g, "\r\n"))).toMatchObject({ ok: true, value: { content: "print(1)\n" } });
  });

  it("refuses an answer without a fenced block, or with two", () => {
    expect(problemOf(answer(...FIELDS, "print(1)"))).toBe(
      "the answer holds no fenced block with the script; put the whole script between a line ``` and a line ```",
    );
    expect(problemOf(answer(...FIELDS, "```", "print(1)", "```", "```", "print(2)", "```"))).toMatch(
      /^the answer holds more than one fenced block; put the whole script in one block\. If the script itself holds a line of three backticks, fence it with four/,
    );
  });

  it("refuses a fence that is never closed, as an answer cut off leaves it", () => {
    expect(problemOf(answer(...FIELDS, "```python", "print(1)"))).toBe(
      "the fenced block opened on line 4 is never closed (no line of 3 backticks after it; was the answer cut off?); end the script with that line",
    );
  });

  it("refuses a field that is missing, repeated or empty, saying what goes on it", () => {
    expect(problemOf(answer(FIELDS[0]!, FIELDS[1]!, "```", "print(1)", "```"))).toBe(
      "the answer has no line `command: …` outside the fenced block; give on it the shell command that runs the script from the repository's root",
    );
    expect(problemOf(answer(...FIELDS, "path: other.py", "```", "print(1)", "```"))).toBe("the answer has 2 lines `path: …`; write exactly one");
    expect(problemOf(answer("expected:", FIELDS[1]!, FIELDS[2]!, "```", "print(1)", "```"))).toBe(
      "the line `expected:` is empty; say on it what the script's run shows while the issue is there",
    );
  });

  it("refuses an empty script", () => {
    expect(problemOf(answer(...FIELDS, "```", "  ", "```"))).toBe("the fenced block is empty; put the whole script in it");
  });

  it("reads what the scripted answers of the tests write, and says its format for the corrective message", () => {
    expect(scriptAnswer.read(scriptedAnswer(WANT))).toEqual({ ok: true, value: WANT });
    const fenced = { ...WANT, content: "'''\n```\n'''\n" };
    expect(scriptAnswer.read(scriptedAnswer(fenced))).toEqual({ ok: true, value: fenced });
    expect(scriptAnswer.asked).toBe(SCRIPT_ANSWER_ASKED);
  });
});
