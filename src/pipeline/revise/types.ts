import type { DeveloperRole, FileFeedback, FileTask, IssueText, Plan, ResolveResult, UsageReport } from "../types.js";

/** One inline review comment as the revision reads it (already cleaned). */
export interface ReviewComment {
  id: number;
  /** The id of the thread's first comment: replies go there. */
  threadId: number;
  path: string;
  /** The commit the comment was made on (GitHub asks for it, with the path, on a reply). */
  commitId: string;
  /** The last line of the commented range in the pull request's version of the file; absent for a whole-file or removed-line comment. */
  line?: number;
  startLine?: number;
  body: string;
  /** The diff hunk the comment sits on. */
  diffHunk?: string;
}

/** What a revision starts from: the issue, what the pull request changed, and what the reviewer said. */
export interface RevisionInput {
  /** The linked issue (plus a note on the pull request), as the agents read it. */
  issue: IssueText;
  /** Files the pull request changes against its base, with their patches when GitHub gives them. */
  changedFiles: { path: string; patch?: string }[];
  /** Inline comments of the review. */
  comments: ReviewComment[];
  /** Feedback that names no line: the review body and `/magis revise` guidance, or what CI reported. */
  general: string[];
  /**
   * Who gave the feedback: a person's review (default), or the repository's CI failing, whose output is build text
   * the agents diagnose and never instructions they follow.
   */
  source?: "review" | "ci";
}

/**
 * Makes files of the checkout readable under `ctx.root` before anyone reads them, for a checkout made without its
 * files. Paths may be the model's; missing or unsafe ones are left out (readers then find no file).
 */
export type PrepareFiles = (paths: string[]) => Promise<void>;

/** A file the Manager chose not to change for this feedback, and why (told to the reviewer). */
export interface DeclinedFile {
  path: string;
  reason: string;
}

/** The Manager's reading of the feedback: file-level tasks, the reviewer's words per task, and the files left alone. */
export interface Triage {
  tasks: FileTask[];
  feedback: FileFeedback[];
  declined: DeclinedFile[];
}

/** Everything a revision produced: the change (possibly none) and the material of its summary. */
export interface RevisionResult extends Pick<ResolveResult, "patch" | "changes" | "outcomes" | "tests" | "reproduction" | "environment"> {
  tasks: FileTask[];
  feedback: FileFeedback[];
  declined: DeclinedFile[];
  developers: DeveloperRole[];
  plan: Plan;
  usage: UsageReport;
}
