import { describe, expect, it } from "vitest";
import { addNoise, NOISE_KINDS } from "../../../src/eval/oracle/noise/add-noise.js";
import type { NoiseKind, OracleAnswer } from "../../../src/eval/oracle/noise/noise-kind.js";
import { misspellPath } from "../../../src/eval/oracle/noise/change-fields.js";
import { seededRandom } from "../../../src/eval/oracle/noise/seeded-random.js";
import { numberLines } from "../../../src/edit/number-lines.js";

const kind = (name: string): NoiseKind => NOISE_KINDS.find((k) => k.name === name)!;
const json = (prompt: string, value: unknown, vars: Record<string, string> = {}): OracleAnswer => ({ prompt, value, vars });
const apply = (name: string, answer: OracleAnswer, seed = 1) => {
  expect(kind(name).fits(answer), `${name} fits`).toBe(true);
  return kind(name).apply(answer, seededRandom(seed, "test"));
};

const REVIEW = json("qa-review", { comment: "The change is the gold patch.", approved: true });
const FILE = ["import os", "", "def f():", "    # the answer", "    return 1", "", "def g():", "    return 2"].join("\n") + "\n";
const RANGES = json("developer-locate-lines", { path: "pkg/m.py", ranges: [{ start: 4, end: 5, why: "a gold hunk" }] }, { numbered: numberLines(FILE) });
const CODE = json("developer-write-code", { old: "    # the answer\n    return 1", new: "    # the answer\n    return 3" });
const BLOCK = "<<<<<<< SEARCH\n    # the answer\n    return 1\n=======\n    # the answer\n    return 3\n>>>>>>> REPLACE\n";
const EDIT_TEXT = json("developer-write-code", BLOCK, { start: "4", end: "5", context: numberLines(FILE) });
const SCRIPT = json("developer-write-reproduction", "path: tests/test_m.py\ncommand: python3 -m pytest -q tests/test_m.py\n```python\ndef test(): pass\n```\n");

describe("the oracle's noise kinds", () => {
  it("wraps JSON in a fence, in prose or after a <think> block, and a text answer the same way where its format allows", () => {
    expect(apply("fenced", REVIEW).content).toBe('```json\n{"comment":"The change is the gold patch.","approved":true}\n```');
    expect(apply("fenced", EDIT_TEXT).content).toBe(`\`\`\`\n${BLOCK}\n\`\`\``);
    expect(kind("fenced").fits(SCRIPT)).toBe(false);
    const prose = apply("in-prose", REVIEW).content;
    expect(prose).toMatch(/^[A-Z][^\n]+\n\n\{"comment":"The change is the gold patch.","approved":true\}/);
    // A text answer gets prose before it only.
    expect(apply("in-prose", EDIT_TEXT).content).toMatch(new RegExp(`\\n\\n${BLOCK.replace(/[|()[\]]/g, "\\$&")}$`));
    expect(apply("think-block", REVIEW).content).toMatch(/^<think>\n[\s\S]*\{"a": "format"\}[\s\S]*<\/think>\n\n\{"comment"/);
  });

  it("renames a field in case, leaves one out, or drops a verdict's reason, in JSON and in a script's key lines", () => {
    const renamed = JSON.parse(apply("field-case", REVIEW, 2).content) as Record<string, unknown>;
    const keys = Object.keys(renamed);
    expect(keys).toHaveLength(2);
    expect(keys.map((k) => k.toLowerCase()).sort()).toEqual(["approved", "comment"]);
    expect(keys.some((k) => k === "comment" || k === "approved")).toBe(true);
    expect(keys.every((k) => k === "comment" || k === "approved")).toBe(false);
    expect(apply("field-case", SCRIPT).content).toMatch(/^(Path|PATH): tests\/test_m.py\n|\n(Command|COMMAND): /);
    expect(Object.keys(JSON.parse(apply("field-missing", REVIEW).content) as object)).toHaveLength(1);
    expect(
      apply("field-missing", SCRIPT)
        .content.split("\n")
        .filter((l) => /^[a-z]+: /.test(l)),
    ).toHaveLength(1);
    expect(JSON.parse(apply("verdict-without-reason", REVIEW).content)).toEqual({ approved: true });
    expect(JSON.parse(apply("verdict-without-reason", json("custodian-judge-relevance", { relevant: false, reason: "no" })).content)).toEqual({
      relevant: false,
    });
    expect(kind("verdict-without-reason").fits(json("manager-design-developer", { name: "x", role: "y" }))).toBe(false);
  });

  it("drops the reason of one verdict in a list, as custodian-judge-relevance answers them", () => {
    const files = [
      { path: "a.py", reason: "The gold patch changes this file.", relevant: true },
      { path: "b.py", reason: "The gold patch does not change this file.", relevant: false },
    ];
    const judged = json("custodian-judge-relevance", { files });
    const dropped = new Set<number>();
    for (let seed = 0; seed < 20; seed++) {
      const sent = JSON.parse(apply("verdict-without-reason", judged, seed).content) as { files: Record<string, unknown>[] };
      const without = sent.files.flatMap((file, i) => ("reason" in file ? [] : [i]));
      expect(without).toHaveLength(1);
      const i = without[0]!;
      dropped.add(i);
      expect(sent.files[i]).toEqual({ path: files[i]!.path, relevant: files[i]!.relevant });
      expect(sent.files[1 - i]).toEqual(files[1 - i]);
    }
    expect([...dropped].sort()).toEqual([0, 1]);
    expect(judged.value).toEqual({ files });
    expect(kind("verdict-without-reason").fits(json("custodian-judge-relevance", { files: [{ path: "a.py", relevant: true }] }))).toBe(false);
  });

  it("moves every range by the same few lines, and adds a range elsewhere on a line of code no range touches", () => {
    const moved = JSON.parse(apply("lines-off", RANGES).content) as { ranges: { start: number; end: number }[] };
    const shift = moved.ranges[0]!.start - 4;
    expect(Math.abs(shift)).toBeGreaterThanOrEqual(1);
    expect(Math.abs(shift)).toBeLessThanOrEqual(3);
    expect(moved.ranges[0]!.end - moved.ranges[0]!.start).toBe(1);
    const extra = JSON.parse(apply("extra-edit", RANGES).content) as { ranges: { start: number; end: number }[] };
    expect(extra.ranges).toHaveLength(2);
    const added = extra.ranges.find((r) => r.start !== 4)!;
    expect(added.start).toBe(added.end);
    // Lines 3-6 border the gold range; 2 is blank: only 1, 7 and 8 hold code elsewhere.
    expect([1, 7, 8]).toContain(added.start);
  });

  it("changes the SEARCH side only: its indentation lost, or a comment reworded, in JSON's `old` and in an edit block", () => {
    expect(JSON.parse(apply("search-unindented", CODE).content)).toEqual({ old: "# the answer\nreturn 1", new: "    # the answer\n    return 3" });
    expect(apply("search-unindented", EDIT_TEXT).content).toBe(BLOCK.replace("    # the answer\n    return 1\n=", "# the answer\nreturn 1\n="));
    const reworded = JSON.parse(apply("search-comment-changed", CODE).content) as { old: string; new: string };
    expect(reworded).toEqual({ old: "    # The answer (as noted)\n    return 1", new: "    # the answer\n    return 3" });
    expect(apply("search-comment-changed", EDIT_TEXT).content).toBe(BLOCK.replace("# the answer\n    return 1\n=", "# The answer (as noted)\n    return 1\n="));
  });

  it("adds a second edit block on a line shown around the edit, outside the replaced lines", () => {
    const content = apply("extra-edit", EDIT_TEXT).content;
    expect(content.startsWith(BLOCK)).toBe(true);
    const second = /<<<<<<< SEARCH\n(.*)\n=======\n\1 # tidied\n>>>>>>> REPLACE\n$/.exec(content.slice(BLOCK.length));
    expect(["import os", "def f():", "def g():", "    return 2"]).toContain(second?.[1]);
  });

  it("drops a trailing newline, cuts an answer off with finish_reason length, and misspells a path slightly", () => {
    expect(apply("newline-dropped", EDIT_TEXT).content).toBe(BLOCK.slice(0, -1));
    const script = json("developer-write-reproduction", { path: "t.py", command: "python3 t.py", content: "print(1)\n", expected: "1" });
    expect(JSON.parse(apply("newline-dropped", script).content)).toMatchObject({ content: "print(1)" });
    expect(kind("newline-dropped").fits(REVIEW)).toBe(false);
    // An edit's `new` ending in "\n" ends with a blank line of code: dropping it would change the code, not its format.
    expect(kind("newline-dropped").fits(json("developer-write-code", { old: "    return 1\n", new: "    return 3\n\n" }))).toBe(false);
    const cut = apply("cut-off", REVIEW);
    expect(cut.finishReason).toBe("length");
    expect(cut.content.length).toBeLessThan(JSON.stringify(REVIEW.value).length);
    expect(JSON.stringify(REVIEW.value).startsWith(cut.content)).toBe(true);
    expect(JSON.parse(apply("path-wrong", RANGES).content).path).not.toBe("pkg/m.py");
    expect(apply("path-wrong", SCRIPT).content).toMatch(/^path: (?!tests\/test_m\.py\n)\S+\n/);
    // The first folder left out, or two letters of the name swapped.
    const variants = new Set(Array.from({ length: 40 }, (_, seed) => misspellPath("astropy/io/rst.py", seededRandom(seed, "p"))));
    expect([...variants].every((v) => v === "io/rst.py" || (v.startsWith("astropy/io/") && v !== "astropy/io/rst.py" && v.length === 17))).toBe(true);
    expect(variants.has("io/rst.py")).toBe(true);
  });
});

describe("addNoise", () => {
  it("sends clean at rate 0, always one fitting kind at rate 1, and the same for the same seed and key", () => {
    expect(addNoise(REVIEW, { rate: 0, seed: 1 }, "k")).toEqual({ content: JSON.stringify(REVIEW.value), finishReason: "stop", kind: null });
    const kinds = new Set<string>();
    for (let seed = 0; seed < 200; seed++) {
      const noisy = addNoise(REVIEW, { rate: 1, seed }, "k");
      expect(noisy.kind).not.toBeNull();
      expect(kind(noisy.kind!).fits(REVIEW)).toBe(true);
      expect(addNoise(REVIEW, { rate: 1, seed }, "k")).toEqual(noisy);
      kinds.add(noisy.kind!);
    }
    // Every kind that fits a verdict is drawn, and none that does not (lines-off needs ranges).
    expect([...kinds].sort()).toEqual(
      NOISE_KINDS.filter((k) => k.fits(REVIEW))
        .map((k) => k.name)
        .sort(),
    );
    expect(kinds.has("lines-off")).toBe(false);
  });

  it("draws the kinds that fit few answers more often: lines-off and verdict-without-reason weigh 3 against 1", () => {
    const share = (answer: OracleAnswer, name: string): number => {
      const drawn = Array.from({ length: 3000 }, (_, i) => addNoise(answer, { rate: 1, seed: 3 }, `call ${i}`).kind);
      return drawn.filter((k) => k === name).length / drawn.length;
    };
    const weightOf = (answer: OracleAnswer): number => NOISE_KINDS.filter((k) => k.fits(answer)).reduce((n, k) => n + (k.weight ?? 1), 0);
    expect(share(RANGES, "lines-off")).toBeCloseTo(3 / weightOf(RANGES), 1);
    expect(3 / weightOf(RANGES)).toBeGreaterThan(1.5 / NOISE_KINDS.filter((k) => k.fits(RANGES)).length);
    expect(share(REVIEW, "verdict-without-reason")).toBeCloseTo(3 / weightOf(REVIEW), 1);
    expect(share(REVIEW, "fenced")).toBeCloseTo(1 / weightOf(REVIEW), 1);
  });

  it("changes about the share of answers the rate says", () => {
    const noisy = Array.from({ length: 2000 }, (_, i) => addNoise(REVIEW, { rate: 0.3, seed: 7 }, `call ${i}`)).filter((a) => a.kind !== null);
    expect(noisy.length).toBeGreaterThan(2000 * 0.25);
    expect(noisy.length).toBeLessThan(2000 * 0.35);
  });
});
