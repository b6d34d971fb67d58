import type { ScriptedRequest } from "../test/support/scripted-model.js";

/** The user messages of a scripted-model request, joined: what a scripted answer reads. */
export function userText(request: ScriptedRequest): string {
  return request.messages
    .filter((m) => m.role === "user")
    .map((m) => m.content)
    .join("\n");
}

/** The file a per-file prompt is about: every such prompt names it ("## File `x`", "Your task, on `x`", "The task for `x`", "the file `x`"). */
export function pathIn(request: ScriptedRequest): string {
  return /(?:, on|task for|## File|[Tt]he file|version of) `([^`]+)`/.exec(userText(request))?.[1] ?? "(unknown)";
}
