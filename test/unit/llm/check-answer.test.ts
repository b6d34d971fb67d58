import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkAnswer } from "../../../src/llm/check-answer.js";
import { matchFieldNames } from "../../../src/llm/match-field-names.js";
import { NOISE_KINDS } from "../../../src/eval/oracle/noise/add-noise.js";
import { seededRandom } from "../../../src/eval/oracle/noise/seeded-random.js";

const review = z.object({ comment: z.string(), approved: z.boolean() });
const task = z.object({ needs_change: z.boolean(), description: z.string() });
const ranges = z.object({ path: z.string(), ranges: z.array(z.object({ start: z.number(), end: z.number(), why: z.string() })) });
const plan = z.object({ steps: z.array(z.array(z.string())), rationale: z.string().optional() });

describe("checkAnswer's lenient readings", () => {
  it("reads a field named in another case or with other separators as the schema's field", () => {
    expect(checkAnswer('{"comment": "fine", "Approved": true}', review)).toEqual({ ok: true, value: { comment: "fine", approved: true } });
    expect(checkAnswer('{"COMMENT": "fine", "approved": false}', review)).toEqual({ ok: true, value: { comment: "fine", approved: false } });
    expect(checkAnswer('{"NeedsChange": true, "description": "d"}', task)).toEqual({ ok: true, value: { needs_change: true, description: "d" } });
    expect(checkAnswer('{"needsChange": false, "Description": "d"}', task)).toEqual({ ok: true, value: { needs_change: false, description: "d" } });
  });

  it("renames at every depth the schema describes: fields of objects inside arrays, behind optional", () => {
    const answer = '{"Path": "a.py", "ranges": [{"Start": 1, "END": 2, "why": "x"}]}';
    expect(checkAnswer(answer, ranges)).toEqual({ ok: true, value: { path: "a.py", ranges: [{ start: 1, end: 2, why: "x" }] } });
    expect(checkAnswer('{"Steps": [["a.py"]], "Rationale": "r"}', plan)).toEqual({ ok: true, value: { steps: [["a.py"]], rationale: "r" } });
  });

  it("renames nothing where the reading is ambiguous: two keys for one field, or the field already given", () => {
    const twice = checkAnswer('{"comment": "c", "Approved": true, "APPROVED": false}', review);
    expect(twice.ok).toBe(false);
    expect(!twice.ok && twice.error).toMatch(/approved/);
    // The field as given wins; the other spelling is an unknown key, which zod drops.
    expect(checkAnswer('{"comment": "c", "approved": false, "Approved": true}', review)).toEqual({ ok: true, value: { comment: "c", approved: false } });
    expect(matchFieldNames({ Approved: true, APPROVED: false }, review)).toEqual({ Approved: true, APPROVED: false });
  });

  it("renames a union's value under the first option whose fields take all its keys, and leaves it when none does", () => {
    const short = z.object({ needs_change: z.boolean() });
    const full = z.object({ needs_change: z.boolean(), reason: z.string() });
    const either = z.union([short, full]);
    // The first option renames one key only; the second takes both, so the reason is kept.
    expect(matchFieldNames({ needsChange: true, Reason: "r" }, either)).toEqual({ needs_change: true, reason: "r" });
    expect(checkAnswer('{"needsChange": true, "Reason": "r"}', z.union([short.strict(), full.strict()]))).toEqual({
      ok: true,
      value: { needs_change: true, reason: "r" },
    });
    // A value that fits the first option as it is is not renamed towards another.
    const named = z.union([z.object({ Path: z.string() }), z.object({ path: z.string() })]);
    expect(matchFieldNames({ Path: "a.py" }, named)).toEqual({ Path: "a.py" });
    // No option takes every key: nothing renamed, for the schema to refuse.
    expect(matchFieldNames({ needsChange: true, Other: 1 }, either)).toEqual({ needsChange: true, Other: 1 });
    expect(matchFieldNames([{ NeedsChange: false }], z.union([z.string(), z.array(short)]))).toEqual([{ needs_change: false }]);
  });

  it("reads a fenced answer, one inside prose, and one after a <think> block, with a field renamed in case", () => {
    expect(checkAnswer('```json\n{"comment": "c", "Approved": true}\n```', review)).toEqual({ ok: true, value: { comment: "c", approved: true } });
    expect(checkAnswer('Here it is:\n{"Comment": "c", "approved": true}\nThanks.', review)).toEqual({ ok: true, value: { comment: "c", approved: true } });
    expect(checkAnswer('<think>{"approved": false}</think>\n{"comment": "c", "APPROVED": true}', review)).toEqual({
      ok: true,
      value: { comment: "c", approved: true },
    });
  });

  it("absorbs every harmless kind of the oracle's noise, and refuses the rest naming what is wrong", () => {
    const clean = { comment: "The change is the gold patch.", approved: true };
    const answer = { prompt: "qa-review", value: clean, vars: {} };
    for (const kind of NOISE_KINDS.filter((k) => k.fits(answer))) {
      for (let seed = 0; seed < 5; seed++) {
        const { content } = kind.apply(answer, seededRandom(seed, kind.name));
        const checked = checkAnswer(content, review);
        if (["fenced", "in-prose", "think-block", "field-case"].includes(kind.name))
          expect(checked, `${kind.name}: ${content}`).toEqual({ ok: true, value: clean });
        else {
          expect(checked.ok, `${kind.name}: ${content}`).toBe(false);
          // A field left out is named; a cut-off answer is no valid JSON.
          expect(!checked.ok && checked.error, kind.name).toMatch(/→ at (comment|approved)|no valid JSON|no JSON object/);
        }
      }
    }
  });
});
