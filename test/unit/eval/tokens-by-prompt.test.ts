import { describe, expect, it } from "vitest";
import { tokensByPrompt } from "../../../src/eval/tokens-by-prompt.js";
import type { TraceRecord } from "../../../src/llm/types.js";

const record = (prompt: string, promptTokens: number, completionTokens: number, extra: Partial<TraceRecord> = {}): TraceRecord => ({
  agent: prompt.startsWith("custodian") ? "custodian" : "qa",
  prompt,
  promptHash: "000000000000",
  model: "m",
  messages: [],
  raw: null,
  parsed: null,
  usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
  ms: 1,
  ...extra,
});

describe("tokensByPrompt", () => {
  it("counts each request once (a retry and a failed call too, a request's other answers not) and sums its tokens by prompt", () => {
    const trace = [
      record("custodian-summarize-file", 100, 10),
      record("custodian-summarize-file", 200, 20, { error: "the JSON does not match" }),
      record("custodian-summarize-file", 300, 30),
      record("qa-select-candidate", 50, 15, { choice: 0 }),
      record("qa-select-candidate", 0, 0, { choice: 1 }),
      record("custodian-judge-relevance", 0, 0, { error: "could not reach the server" }),
    ];
    expect(tokensByPrompt(trace)).toEqual({
      "custodian-summarize-file": { agent: "custodian", calls: 3, prompt: 600, completion: 60, total: 660 },
      "qa-select-candidate": { agent: "qa", calls: 1, prompt: 50, completion: 15, total: 65 },
      "custodian-judge-relevance": { agent: "custodian", calls: 1, prompt: 0, completion: 0, total: 0 },
    });
  });
});
