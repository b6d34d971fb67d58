import type { EditBlock } from "./read-edit-block.js";

/**
 * An edit written as developer-write-code asks for it: the prose, then one SEARCH/REPLACE block whose parts are `old`
 * and `new` (lines joined with "\n"; an empty `new` deletes the lines). readEditBlock reads it back as it was given.
 */
export function writeEditBlock(edit: EditBlock, prose: string): string {
  const part = (text: string): string[] => (text === "" ? [] : text.split("\n"));
  return [prose, "<<<<<<< SEARCH", ...part(edit.old), "=======", ...part(edit.new), ">>>>>>> REPLACE", ""].join("\n");
}
