import type { TraceRecord } from "../../llm/types.js";
import type { SessionEntry } from "../types.js";

/** A model call's trace record as a session entry (the recorder redacts, bounds and prices it). */
export function modelCallEntry(record: TraceRecord): SessionEntry {
  return {
    kind: "model-call",
    data: {
      agent: record.agent,
      prompt: record.prompt,
      promptHash: record.promptHash,
      model: record.model,
      promptTokens: record.usage.promptTokens,
      completionTokens: record.usage.completionTokens,
      ms: record.ms,
      messages: record.messages.map((m) => ({ role: m.role, content: m.content })),
      raw: record.raw,
      parsed: record.parsed,
      ...(record.choice !== undefined && { choice: record.choice }),
      ...(record.error !== undefined && { error: record.error }),
    },
  };
}
