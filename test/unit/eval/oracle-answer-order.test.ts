import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { answerAsOracle } from "../../../src/eval/oracle/answer-as-oracle.js";
import { answerCall } from "../../../src/eval/oracle/answer-call.js";
import { answerAsReproducer } from "../../../src/eval/oracle/answer-reproducer.js";
import { readPatchHunks } from "../../../src/eval/read-patch-hunks.js";
import { answerSchema as jsonSchemaOf } from "../../../src/llm/response-format.js";
import { answerSchema as reviewAnswer } from "../../../src/pipeline/code/review-change.js";
import { answerSchema as taskAnswer, taskAndWaySchema } from "../../../src/pipeline/plan/define-tasks.js";
import { answerSchema as planAnswer } from "../../../src/pipeline/plan/make-plan.js";
import { waySchema } from "../../../src/pipeline/reproduce/choose-way.js";

const GOLD = readPatchHunks(["--- a/m.py", "+++ b/m.py", "@@ -1,1 +1,1 @@", "-x = 1", "+x = 2", ""].join("\n"));
const REPRODUCTION = { testPatch: "", failToPass: ["tests/test_m.py::test_x"], checkout: "/nonexistent" };

// The oracle stands for a model that follows the response format, so it writes the fields in the format's order: the
// reasoning before the decision (what a noisy oracle cuts off at the token limit is then the decision, as with a model).
const ANSWERS: { label: string; schema: z.ZodType; answer: () => unknown }[] = [
  { label: "qa-review", schema: reviewAnswer, answer: () => answerAsOracle("qa-review", { path: "m.py" }, GOLD) },
  { label: "manager-define-task, a gold file", schema: taskAnswer, answer: () => answerAsOracle("manager-define-task", { path: "m.py" }, GOLD) },
  { label: "manager-define-task, another file", schema: taskAnswer, answer: () => answerAsOracle("manager-define-task", { path: "n.py" }, GOLD) },
  { label: "manager-make-plan", schema: planAnswer, answer: () => answerAsOracle("manager-make-plan", { tasks: "- `m.py`: change x" }, GOLD) },
  { label: "manager-choose-way, dynamic", schema: waySchema, answer: () => answerAsReproducer("manager-choose-way", {}, REPRODUCTION) },
  { label: "manager-choose-way, static", schema: waySchema, answer: () => answerAsReproducer("manager-choose-way", {}, undefined) },
  {
    label: "manager-define-task-and-way, dynamic",
    schema: taskAndWaySchema,
    answer: () => answerCall("manager-define-task-and-way", { path: "m.py" }, GOLD, REPRODUCTION),
  },
  {
    label: "manager-define-task-and-way, static",
    schema: taskAndWaySchema,
    answer: () => answerCall("manager-define-task-and-way", { path: "n.py" }, GOLD, undefined),
  },
];

describe("the oracle's reasoned answers", () => {
  for (const { label, schema, answer } of ANSWERS) {
    it(`${label}: an answer its stage accepts, its fields in the response format's order`, () => {
      const value = answer();
      expect(schema.safeParse(value).success).toBe(true);
      const order = Object.keys((jsonSchemaOf(schema).properties ?? {}) as Record<string, unknown>);
      expect(Object.keys(value as object)).toEqual(order.filter((key) => key in (value as object)));
    });
  }
});
