import type { IssueText } from "../../pipeline/types.js";
import { cleanText } from "../../lib/clean-text.js";
import { readIssueText, type HintPolicy, type IssueSnapshot } from "./read-issue-text.js";
import { issueOfBranch } from "../branches/choose-branch.js";
import type { Octokit } from "../types.js";

const MAX_PULL_BODY_CHARS = 4000;

/** The issue a pull request resolves: its `Fixes #N` (or `Closes`/`Resolves`), else the issue of its bot branch, else null. */
export function linkedIssue(body: string, headRef: string, prefix: string): number | null {
  const match = /\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\s+#(\d+)\b/i.exec(body);
  return match ? Number(match[1]) : issueOfBranch(prefix, headRef);
}

/** The pull request being revised, and how its issue is found and read. */
export interface RevisionToRead {
  pull: { number: number; title: string; body: string; headRef: string };
  /** Config `branch_prefix`: a bot branch's name says its issue. */
  prefix: string;
  /** Whose comments on the linked issue become hints. */
  hints: HintPolicy;
  /**
   * The linked issue as the trigger that started its pull request carried it (see IssueSnapshot), when that run is
   * known: a later edit of the issue, by anyone, does not steer the revision. Without one the issue is read now.
   */
  asTriggered?: (issue: number) => Promise<IssueSnapshot | undefined>;
}

/**
 * What the agents read as "the issue" of a revision: the linked issue with its people's comments as hints, plus a
 * hint that the pull request exists and is being revised. A pull request without a linked issue stands for itself.
 */
export async function readRevisionIssue(octokit: Octokit, repo: { owner: string; repo: string }, revision: RevisionToRead): Promise<IssueText> {
  const { pull, prefix, hints, asTriggered } = revision;
  const note = `Pull request #${pull.number} ("${cleanText(pull.title)}") was opened by the team for this issue and is being revised after a human review.`;
  const issue = linkedIssue(pull.body, pull.headRef, prefix);
  if (issue !== null) {
    const snapshot = await asTriggered?.(issue);
    const text = await readIssueText(octokit, { ...repo, number: issue }, { guidance: "", hints, ...(snapshot && { snapshot }) });
    return { ...text, hints: [note, ...text.hints] };
  }
  return { title: cleanText(pull.title), body: cleanText(pull.body).slice(0, MAX_PULL_BODY_CHARS), hints: [note] };
}
