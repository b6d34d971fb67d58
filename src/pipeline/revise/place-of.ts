/** Where an inline comment sits, in words: "lines 3-5", "line 4", or "the file". */
export function placeOf(comment: { line?: number; startLine?: number }): string {
  if (comment.startLine && comment.line) return `lines ${comment.startLine}-${comment.line}`;
  return comment.line ? `line ${comment.line}` : "the file";
}
