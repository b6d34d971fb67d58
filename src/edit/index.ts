export { applyEdits } from "./apply-edits.js";
export { decodeFile, describeEncoding, encodeFile, findUnencodable, type FileEncoding } from "./file-encoding.js";
export { splitFile } from "./split-text.js";
export { numberLines } from "./number-lines.js";
export type { ApplyResult, Edit, EditPlacement, MatchLevel, RangeEdit, SearchReplaceEdit } from "./types.js";
export { encodePatch } from "./encode-patch.js";
export { makeDiff } from "./make-diff.js";
export { newSyntaxErrors, type SyntaxErrorReport } from "./new-syntax-errors.js";
export { normalizeCode, normalizedDigest } from "./normalize-code.js";
