import type { ScriptAnswer } from "./read-script-answer.js";

/**
 * A script written as developer-write-reproduction asks for it: the prose, its `key: value` lines, then the script in
 * one fenced block (four backticks when the script holds a line of three). readScriptAnswer reads it back as given.
 */
export function writeScriptAnswer(script: ScriptAnswer, prose: string): string {
  const body = script.content.endsWith("\n") ? script.content.slice(0, -1) : script.content;
  const longest = Math.max(2, ...[...body.matchAll(/^\s*(`{3,})/gm)].map((match) => match[1]!.length));
  const fence = "`".repeat(longest + 1);
  return [prose, `expected: ${script.expected}`, `path: ${script.path}`, `command: ${script.command}`, fence, body, fence, ""].join("\n");
}
