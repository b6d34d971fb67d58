import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { answerSchema as jsonSchemaOf } from "../../src/llm/response-format.js";
import { listPrompts, loadPrompt } from "../../src/llm/prompts.js";
import { rangesSchema } from "../../src/pipeline/code/make-attempt.js";
import { editBlockAnswer } from "../../src/llm/read-edit-block.js";
import { scriptAnswer } from "../../src/llm/read-script-answer.js";
import type { TextAnswer } from "../../src/llm/types.js";
import { answerSchema as qaRoleAnswer } from "../../src/pipeline/code/design-qa-role.js";
import { answerSchema as reviewAnswer } from "../../src/pipeline/code/review-change.js";
import { selectionSchema } from "../../src/pipeline/code/select-candidate.js";
import { relevanceSchema } from "../../src/pipeline/locate/judge-relevance.js";
import { diffMessageSchema, fileSummarySchema } from "../../src/pipeline/locate/summarize-candidate.js";
import { answerSchema as taskAnswer, taskAndWaySchema } from "../../src/pipeline/plan/define-tasks.js";
import { answerSchema as developerAnswer } from "../../src/pipeline/plan/design-developers.js";
import { speechSchema } from "../../src/pipeline/plan/hold-kickoff-meeting.js";
import { answerSchema as planAnswer } from "../../src/pipeline/plan/make-plan.js";
import { answerSchema as refinedRoleAnswer } from "../../src/pipeline/plan/refine-roles.js";
import { answerSchema as triageAnswer } from "../../src/pipeline/revise/triage-feedback.js";
import { waySchema } from "../../src/pipeline/reproduce/choose-way.js";
import { checkSchema } from "../../src/pipeline/reproduce/reproduce-issue.js";

// The schema each prompt's stage validates the model's answer with (the `schema` of its ask).
const SCHEMAS: Record<string, z.ZodType> = {
  "custodian-judge-relevance": relevanceSchema,
  "custodian-summarize-diff": diffMessageSchema,
  "custodian-summarize-file": fileSummarySchema,
  "developer-design-qa": qaRoleAnswer,
  "developer-locate-lines": rangesSchema,
  "developer-refine-role": refinedRoleAnswer,
  "developer-speak": speechSchema,
  "manager-close-meeting": speechSchema,
  "manager-define-task": taskAnswer,
  "manager-define-task-and-way": taskAndWaySchema,
  "manager-design-developer": developerAnswer,
  "manager-make-plan": planAnswer,
  "manager-open-meeting": speechSchema,
  "manager-triage-feedback": triageAnswer,
  "manager-choose-way": waySchema,
  "qa-review": reviewAnswer,
  "qa-select-candidate": selectionSchema,
  "developer-check-reproduction": checkSchema,
};

// The reader of each prompt whose answer is text, not JSON (the `text` of its ask).
const READERS: Record<string, TextAnswer<unknown>> = {
  "developer-write-code": editBlockAnswer(),
  "developer-write-reproduction": scriptAnswer,
};

// Prompts whose answer varies in shape or verdict: each shows one example per case, and these are the labels.
const CASES: Record<string, string[]> = {
  "custodian-judge-relevance": ["some relevant", "none relevant"],
  "developer-locate-lines": ["one range", "several ranges"],
  "manager-choose-way": ["dynamic", "static"],
  "manager-define-task": ["change", "ask"],
  "manager-define-task-and-way": ["dynamic", "static"],
  "manager-make-plan": ["ordered", "all at once"],
  "manager-triage-feedback": ["review", "nothing to change"],
  "qa-review": ["revise", "approve"],
  "qa-select-candidate": ["chosen", "no preference"],
  "developer-check-reproduction": ["reproduced", "not reproduced"],
  "developer-write-code": ["replacement", "insertion"],
};

interface Example {
  label: string;
  text: string;
}

const EXAMPLE_LINE = /^Example \(([^)\n]+)\):[ \t]*$/;
const HEADING_LINE = /^#{1,6} /;
const FENCE_LINE = /^(`{3,}|~{3,})/;

/**
 * The examples a message shows: each `Example (<label>):` line and what follows it, to the next one, a heading or the
 * end. Inside a fenced block (a script's text) neither a label nor a `# comment` line ends the example.
 */
function examplesIn(message: string): Example[] {
  const examples: Example[] = [];
  let open: { label: string; lines: string[] } | undefined;
  let fence: string | undefined;
  const close = () => {
    if (open) examples.push({ label: open.label, text: open.lines.join("\n").trim() });
    open = undefined;
  };
  for (const line of message.split("\n")) {
    const marker = FENCE_LINE.exec(line)?.[1];
    const started = fence ? null : EXAMPLE_LINE.exec(line);
    if (started || (!fence && HEADING_LINE.test(line))) close();
    if (marker && !fence) fence = marker;
    else if (marker && marker[0] === fence![0] && marker.length >= fence!.length && line.trim() === marker) fence = undefined;
    if (started) open = { label: started[1]!, lines: [] };
    else open?.lines.push(line);
  }
  close();
  return examples;
}

/** Every example a prompt shows, in its system and user messages. */
function examplesOf(name: string): Example[] {
  const prompt = loadPrompt(name);
  return [...examplesIn(prompt.system), ...examplesIn(prompt.user)];
}

/**
 * Where an example's keys depart from the order its JSON Schema lists them (the order the model is asked to write
 * them in: reasoning first), as `path: keys` lines; none when every object follows its schema.
 */
function orderProblems(value: unknown, schema: Record<string, unknown>, path = "$"): string[] {
  if (Array.isArray(value)) {
    const items = schema.items as Record<string, unknown> | undefined;
    return items ? value.flatMap((item, i) => orderProblems(item, items, `${path}[${i}]`)) : [];
  }
  if (value === null || typeof value !== "object") return [];
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const order = Object.keys(properties);
  const keys = Object.keys(value).filter((key) => order.includes(key));
  const expected = [...keys].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  const here = keys.join() === expected.join() ? [] : [`${path}: ${keys.join(", ")} (the schema's order: ${expected.join(", ")})`];
  const record = value as Record<string, unknown>;
  return [...here, ...keys.flatMap((key) => orderProblems(record[key], properties[key]!, `${path}.${key}`))];
}

describe("examplesIn", () => {
  it("reads each labelled block up to the next label, a heading or the end", () => {
    const message = ["Intro.", "", "Example (a):", '{"x": 1}', "", "Example (b c):", "line 1", "line 2", "## Next", "after"].join("\n");
    expect(examplesIn(message)).toEqual([
      { label: "a", text: '{"x": 1}' },
      { label: "b c", text: "line 1\nline 2" },
    ]);
  });

  it("keeps a fenced block whole: a `# comment` or a label line inside it does not end the example", () => {
    const script = ["Example (script):", "path: t.py", "````", "# a comment", "Example (not one):", "```", "````", "## Next"];
    expect(examplesIn(script.join("\n"))).toEqual([{ label: "script", text: script.slice(1, 7).join("\n") }]);
  });

  it("ignores a label that is not alone on its line", () => {
    expect(examplesIn('See Example (a): {"x": 1}\nExample (b): {"y": 2}')).toEqual([]);
  });
});

describe("orderProblems", () => {
  const schema = { properties: { reason: {}, list: { items: { properties: { why: {}, ok: {} } } }, verdict: {} } };

  it("accepts keys in the schema's order, at every depth, with keys left out", () => {
    expect(orderProblems({ reason: "r", list: [{ why: "w", ok: true }, { ok: false }], verdict: true }, schema)).toEqual([]);
  });

  it("names each object whose keys are out of order", () => {
    expect(orderProblems({ verdict: true, reason: "r", list: [{ ok: true, why: "w" }] }, schema)).toEqual([
      "$: verdict, reason, list (the schema's order: reason, list, verdict)",
      "$.list[0]: ok, why (the schema's order: why, ok)",
    ]);
  });
});

describe("the answer examples the prompts show", () => {
  it("names a schema or a text reader for every prompt in prompts/", () => {
    expect([...Object.keys(SCHEMAS), ...Object.keys(READERS)].sort()).toEqual(listPrompts());
  });

  for (const name of listPrompts()) {
    describe(name, () => {
      const examples = examplesOf(name);

      it("shows at least one example, each under its own label", () => {
        expect(examples.length).toBeGreaterThan(0);
        const labels = examples.map((e) => e.label);
        expect(new Set(labels).size).toBe(labels.length);
      });

      if (CASES[name]) {
        it(`shows one example for each case: ${CASES[name].join(", ")}`, () => {
          expect(examples.map((e) => e.label)).toEqual(CASES[name]);
        });
      }

      it("uses the `Example (<label>):` form only", () => {
        expect(loadPrompt(name).user.toLowerCase()).not.toContain("for example:");
      });

      const reader = READERS[name];
      for (const example of reader ? examples : []) {
        it(`example (${example.label}) is a text answer its reader accepts`, () => {
          const read = reader!.read(example.text);
          expect(read.ok ? [] : [read.problem]).toEqual([]);
        });
      }

      for (const example of reader ? [] : examples) {
        it(`example (${example.label}) is an answer its stage accepts, with the keys in the schema's order`, () => {
          const schema = SCHEMAS[name]!;
          const value: unknown = JSON.parse(example.text);
          const result = schema.safeParse(value);
          expect(result.success ? [] : result.error.issues).toEqual([]);
          expect(orderProblems(value, jsonSchemaOf(schema))).toEqual([]);
        });
      }
    });
  }
});
