export { applyEdits } from "./apply-edits.js";
export { numberLines } from "./number-lines.js";
export type { ApplyResult, Edit, EditPlacement, MatchLevel, RangeEdit, SearchReplaceEdit } from "./types.js";
export { makeDiff } from "./make-diff.js";
export { newSyntaxErrors, type SyntaxErrorReport } from "./new-syntax-errors.js";
