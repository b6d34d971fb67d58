import type { ProgressEvent, ResolveResult } from "../../pipeline/types.js";
import type { SessionEntry } from "../types.js";

/** A pipeline's progress event as a session entry: `done` as the run's result, every other event as it came. */
export function progressEntry(event: ProgressEvent): SessionEntry {
  if (event.stage === "done") return resultEntry(event.result);
  return { kind: "progress", data: event };
}

/** What a run produced, as its session keeps it: the patch as text, the usage and the environment (a revision's too). */
export function resultEntry(result: Pick<ResolveResult, "patch" | "usage" | "environment">): SessionEntry {
  return {
    kind: "result",
    data: { patch: result.patch.toString("utf8"), usage: result.usage, ...(result.environment && { environment: result.environment }) },
  };
}
