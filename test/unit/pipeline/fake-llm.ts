import { newDataTag } from "../../../src/llm/mark-data.js";
import { loadPrompt, renderPrompt } from "../../../src/llm/prompts.js";
import type { AskRequest, Llm } from "../../../src/llm/types.js";

/** One call the fake model received. */
export interface FakeCall {
  agent: string;
  prompt: string;
  vars: Record<string, string | number>;
}

type Answer = (vars: Record<string, string | number>, call: number) => unknown;

/**
 * An in-process Llm for stage unit tests: renders the real prompt file (so a wrong variable or agent
 * fails here as it would in production), answers per prompt name from functions, and validates each
 * answer with the request's schema, or a text answer (a string) with the request's reader.
 */
export function fakeLlm(answers: Record<string, Answer>): Llm & { calls: FakeCall[] } {
  const calls: FakeCall[] = [];
  const dataTag = newDataTag();
  return {
    calls,
    async ask<T>(request: AskRequest<T>) {
      const prompt = loadPrompt(request.prompt);
      if (prompt.agent !== request.agent) throw new Error(`prompt ${request.prompt} belongs to ${prompt.agent}, not ${request.agent}`);
      renderPrompt(prompt, request.vars, { dataTag });
      const answer = answers[request.prompt];
      if (!answer) throw new Error(`fake model: no answer for prompt ${request.prompt}`);
      const n = calls.filter((c) => c.prompt === request.prompt).length;
      calls.push({ agent: request.agent, prompt: request.prompt, vars: request.vars });
      const value = readFakeAnswer(request, await answer(request.vars, n));
      return { value, usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 } };
    },
  };
}

/** A scripted answer read as the client reads it: against the schema, or a string by the text reader (its problem thrown). */
function readFakeAnswer<T>(request: AskRequest<T>, answer: unknown): T {
  if (!request.text) return request.schema.parse(answer);
  if (typeof answer !== "string") throw new Error(`fake model: prompt ${request.prompt} takes a text answer (a string), not ${JSON.stringify(answer)}`);
  const read = request.text.read(answer);
  if (!read.ok) throw new Error(`fake model: the text answer to ${request.prompt} was refused: ${read.problem}`);
  return read.value;
}
