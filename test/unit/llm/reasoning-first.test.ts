import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { responseFormatFor } from "../../../src/llm/response-format.js";
import { rangesSchema } from "../../../src/pipeline/code/make-attempt.js";
import { answerSchema as reviewAnswer } from "../../../src/pipeline/code/review-change.js";
import { selectionSchema } from "../../../src/pipeline/code/select-candidate.js";
import { relevanceSchema } from "../../../src/pipeline/locate/judge-relevance.js";
import { answerSchema as taskAnswer, taskAndWaySchema } from "../../../src/pipeline/plan/define-tasks.js";
import { answerSchema as planAnswer } from "../../../src/pipeline/plan/make-plan.js";
import { waySchema } from "../../../src/pipeline/reproduce/choose-way.js";
import { answerSchema as triageAnswer } from "../../../src/pipeline/revise/triage-feedback.js";

// A model writes the fields in the order the response format lists them: the reasoning must come before the decision it
// supports, or the decision is written before it is thought through. `at` walks into nested objects (`[]` = items).
const REASONED: { prompt: string; schema: z.ZodType; at?: string[]; order: string[] }[] = [
  { prompt: "qa-review", schema: reviewAnswer, order: ["comment", "approved"] },
  { prompt: "qa-select-candidate", schema: selectionSchema, order: ["reason", "change"] },
  { prompt: "manager-define-task", schema: taskAnswer, order: ["description", "needs_change", "question"] },
  { prompt: "manager-make-plan", schema: planAnswer, order: ["rationale", "steps"] },
  { prompt: "manager-choose-way", schema: waySchema, order: ["reason", "way", "reproducer"] },
  { prompt: "manager-define-task-and-way", schema: taskAndWaySchema, order: ["description", "needs_change", "question", "way"] },
  { prompt: "manager-define-task-and-way", schema: taskAndWaySchema, at: ["way"], order: ["reason", "way", "reproducer"] },
  { prompt: "manager-triage-feedback", schema: triageAnswer, at: ["tasks", "[]"], order: ["path", "description", "general_feedback"] },
  { prompt: "manager-triage-feedback", schema: triageAnswer, at: ["declined", "[]"], order: ["path", "reason"] },
  { prompt: "custodian-judge-relevance", schema: relevanceSchema, at: ["files", "[]"], order: ["path", "reason", "relevant"] },
  { prompt: "developer-locate-lines", schema: rangesSchema, at: ["ranges", "[]"], order: ["why", "start", "end"] },
];

/** The properties' names of the object at `at` inside a JSON Schema, in the order the schema lists them. */
function propertiesAt(schema: Record<string, unknown>, at: string[]): string[] {
  let node = schema;
  for (const step of at) node = (step === "[]" ? node.items : (node.properties as Record<string, unknown>)[step]) as Record<string, unknown>;
  return Object.keys(node.properties as Record<string, unknown>);
}

describe("the response formats of the reasoned answers", () => {
  for (const { prompt, schema, at = [], order } of REASONED) {
    it(`${prompt}${at.length > 0 ? ` (${at.join("")})` : ""}: lists ${order.join(", ")} in that order`, () => {
      const format = responseFormatFor(schema, prompt);
      expect(propertiesAt(format.json_schema.schema!, at)).toEqual(order);
    });
  }
});
