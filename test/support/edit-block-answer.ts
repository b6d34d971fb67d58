import { reply } from "./scripted-model.js";
import { writeEditBlock } from "../../src/llm/write-edit-block.js";

/**
 * The answer developer-write-code takes, as a scripted model writes it: prose, then one SEARCH/REPLACE block whose
 * parts are `old` and `new` (lines joined with "\n"; an empty `new` deletes the lines), optionally in a ``` fence.
 */
export function editBlockAnswer(old: string, replacement: string, options: { prose?: string; fence?: boolean } = {}): string {
  const { prose = "The change below does the task.", fence = false } = options;
  const text = writeEditBlock({ old, new: replacement }, "");
  return fence ? `${prose}\n\`\`\`python\n${text}\`\`\`\n` : `${prose}\n${text}`;
}

/** The same answer as the scripted model sends it (its raw text, not JSON). */
export function editBlockReply(old: string, replacement: string, options: { prose?: string; fence?: boolean } = {}) {
  return reply.text(editBlockAnswer(old, replacement, options));
}
