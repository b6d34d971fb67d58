import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { listPrompts, loadPrompt } from "../../src/llm/prompts.js";
import { codeSchema, rangesSchema } from "../../src/pipeline/code/make-attempt.js";
import { answerSchema as qaRoleAnswer } from "../../src/pipeline/code/design-qa-role.js";
import { answerSchema as reviewAnswer } from "../../src/pipeline/code/review-change.js";
import { selectionSchema } from "../../src/pipeline/code/select-candidate.js";
import { relevanceSchema } from "../../src/pipeline/locate/judge-relevance.js";
import { diffMessageSchema, fileSummarySchema } from "../../src/pipeline/locate/summarize-candidate.js";
import { answerSchema as taskAnswer } from "../../src/pipeline/plan/define-tasks.js";
import { answerSchema as developerAnswer } from "../../src/pipeline/plan/design-developers.js";
import { speechSchema } from "../../src/pipeline/plan/hold-kickoff-meeting.js";
import { answerSchema as planAnswer } from "../../src/pipeline/plan/make-plan.js";
import { answerSchema as refinedRoleAnswer } from "../../src/pipeline/plan/refine-roles.js";
import { answerSchema as triageAnswer } from "../../src/pipeline/revise/triage-feedback.js";
import { waySchema } from "../../src/pipeline/reproduce/choose-way.js";
import { checkSchema, scriptSchema } from "../../src/pipeline/reproduce/reproduce-issue.js";

// The schema each prompt's stage validates the model's answer with (the `schema` of its ask).
const SCHEMAS: Record<string, z.ZodType> = {
  "custodian-judge-relevance": relevanceSchema,
  "custodian-summarize-diff": diffMessageSchema,
  "custodian-summarize-file": fileSummarySchema,
  "developer-design-qa": qaRoleAnswer,
  "developer-locate-lines": rangesSchema,
  "developer-refine-role": refinedRoleAnswer,
  "developer-speak": speechSchema,
  "developer-write-code": codeSchema,
  "manager-close-meeting": speechSchema,
  "manager-define-task": taskAnswer,
  "manager-design-developer": developerAnswer,
  "manager-make-plan": planAnswer,
  "manager-open-meeting": speechSchema,
  "manager-triage-feedback": triageAnswer,
  "manager-choose-way": waySchema,
  "qa-review": reviewAnswer,
  "qa-select-candidate": selectionSchema,
  "developer-check-reproduction": checkSchema,
  "developer-write-reproduction": scriptSchema,
};

/** The example answer a prompt shows: the JSON after its last "example:", up to the end of the prompt. */
function exampleOf(user: string): unknown {
  const at = user.toLowerCase().lastIndexOf("example:");
  if (at < 0) throw new Error("the prompt shows no example answer (no 'example:')");
  return JSON.parse(user.slice(at + "example:".length).trim());
}

describe("the answer examples the prompts show", () => {
  it("names a schema for every prompt in prompts/", () => {
    expect(Object.keys(SCHEMAS).sort()).toEqual(listPrompts());
  });

  for (const name of listPrompts()) {
    it(`${name}: its example is an answer its stage accepts`, () => {
      const result = SCHEMAS[name]!.safeParse(exampleOf(loadPrompt(name).user));
      expect(result.success ? [] : result.error.issues).toEqual([]);
    });
  }
});
