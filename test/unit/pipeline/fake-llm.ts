import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import type { AskRequest, Llm } from "../../../src/llm/types.js";

/** One call the fake model received. */
export interface FakeCall {
  agent: string;
  prompt: string;
  vars: Record<string, string | number>;
}

type Answer = (vars: Record<string, string | number>, call: number) => unknown;

const promptsDir = path.resolve(import.meta.dirname, "../../../prompts");

/**
 * An in-process Llm for stage unit tests: answers per prompt name from functions, validates each
 * answer with the request's schema, and checks that the variables passed are exactly those the
 * prompt file declares (what the real prompt loader would reject).
 */
export function fakeLlm(answers: Record<string, Answer>): Llm & { calls: FakeCall[] } {
  const calls: FakeCall[] = [];
  return {
    calls,
    async ask<T>(request: AskRequest<T>) {
      const declared = declaredVariables(request.prompt);
      const given = Object.keys(request.vars).sort();
      if (JSON.stringify(declared) !== JSON.stringify(given)) {
        throw new Error(`prompt ${request.prompt} declares [${declared}] but got [${given}]`);
      }
      const answer = answers[request.prompt];
      if (!answer) throw new Error(`fake model: no answer for prompt ${request.prompt}`);
      const n = calls.filter((c) => c.prompt === request.prompt).length;
      calls.push({ agent: request.agent, prompt: request.prompt, vars: request.vars });
      const value = request.schema.parse(await answer(request.vars, n));
      return { value, usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 } };
    },
  };
}

function declaredVariables(prompt: string): string[] {
  const text = fs.readFileSync(path.join(promptsDir, `${prompt}.md`), "utf8");
  const front = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!front) throw new Error(`prompt ${prompt} has no front matter`);
  const vars = (parse(front[1]!) as { variables: string[] }).variables;
  const used = [...new Set([...text.slice(front[0].length).matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!))].sort();
  if (JSON.stringify([...vars].sort()) !== JSON.stringify(used)) throw new Error(`prompt ${prompt}: variables [${vars}] differ from placeholders [${used}]`);
  return [...vars].sort();
}
