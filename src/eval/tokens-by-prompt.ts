import type { TraceRecord } from "../llm/types.js";
import type { PromptTokens } from "./types.js";

/**
 * Calls and tokens per prompt from an instance's trace: every request counts once (a corrective retry is a call of its
 * own, failed calls included), and a request that asked for several answers carries its usage on its first one.
 */
export function tokensByPrompt(trace: readonly TraceRecord[]): Record<string, PromptTokens> {
  const byPrompt: Record<string, PromptTokens> = {};
  for (const record of trace) {
    const entry = (byPrompt[record.prompt] ??= { agent: record.agent, prompt: 0, completion: 0, total: 0, calls: 0 });
    if ((record.choice ?? 0) === 0) entry.calls += 1;
    entry.prompt += record.usage.promptTokens;
    entry.completion += record.usage.completionTokens;
    entry.total += record.usage.totalTokens;
  }
  return byPrompt;
}
