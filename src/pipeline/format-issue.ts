import type { IssueText } from "./types.js";

/** The issue as every Manager, Developer and QA prompt shows it: title, body, then hints if any. */
export function formatIssue(issue: IssueText): string {
  const parts = [`### ${issue.title.trim()}`, issue.body.trim() || "(no description)"];
  if (issue.hints.length > 0) {
    parts.push("### Hints", ...issue.hints.map((hint) => `- ${hint.trim().replace(/\n/g, "\n  ")}`));
  }
  return parts.join("\n\n");
}
