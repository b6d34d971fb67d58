import { reply } from "./scripted-model.js";
import type { ScriptAnswer } from "../../src/llm/read-script-answer.js";
import { writeScriptAnswer } from "../../src/llm/write-script-answer.js";

/**
 * The answer developer-write-reproduction takes, as a scripted model writes it: prose, its `key: value` lines, then the
 * whole script in one fenced block. The reader gives `content` back ending with one newline.
 */
export function scriptAnswer(script: ScriptAnswer, prose = "This script shows the issue."): string {
  return writeScriptAnswer(script, prose);
}

/** The same answer as the scripted model sends it (its raw text, not JSON). */
export function scriptReply(script: ScriptAnswer, prose?: string) {
  return reply.text(scriptAnswer(script, prose));
}
