import type { ProgressEvent } from "../../pipeline/types.js";

/** The stage of a run that begins after a pipeline event, if one does: the Manager plans once files are located, and so on. */
export function stageAfter(event: ProgressEvent): string | null {
  if (event.stage === "located") return "plan";
  if (event.stage === "team") return "kickoff";
  if (event.stage === "plan") return "code";
  return null;
}
