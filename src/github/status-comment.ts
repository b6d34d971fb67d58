import { readStatusMarker } from "./render-status.js";
import type { IssueRef, Octokit } from "./types.js";

/** Where a reaction goes: the issue itself, the comment that triggered the run, or an inline review comment. */
export type ReactionTarget = { kind: "issue" } | { kind: "comment"; id: number } | { kind: "review-comment"; id: number };

/**
 * The one status comment of a run: posted when the run starts, then edited in place. Edits are serialized and
 * coalesced (the latest state wins), so a burst of progress events costs a few API calls, not one each.
 */
export class StatusComment<S> {
  private inFlight: Promise<void> | null = null;
  private dirty = false;

  private constructor(
    private readonly octokit: Octokit,
    private readonly issue: IssueRef,
    private readonly commentId: number,
    private state: S,
    private readonly render: (state: S) => string,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Posts the status comment of a new run, rendered by `render` now and at every edit. */
  static async post<S>(
    octokit: Octokit,
    issue: IssueRef,
    state: S,
    render: (state: S) => string,
    onError: (error: unknown) => void,
  ): Promise<StatusComment<S>> {
    const { data } = await octokit.rest.issues.createComment({ owner: issue.owner, repo: issue.repo, issue_number: issue.number, body: render(state) });
    return new StatusComment(octokit, issue, data.id, state, render, onError);
  }

  /** The state shown (or about to be). */
  get current(): S {
    return this.state;
  }

  /** Changes the state and schedules an edit; returns without waiting for it. */
  update(change: (state: S) => S): void {
    this.state = change(this.state);
    this.dirty = true;
    if (!this.inFlight) this.inFlight = this.pushEdits();
  }

  /** Waits until the comment shows the latest state. */
  async flush(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  private async pushEdits(): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      try {
        await this.octokit.rest.issues.updateComment({ owner: this.issue.owner, repo: this.issue.repo, comment_id: this.commentId, body: this.render(this.state) });
      } catch (error) {
        // A status edit that fails must not fail the run; the next edit carries the whole state again.
        this.onError(error);
      }
    }
    this.inFlight = null;
  }
}

/** Adds a reaction (👀 eyes, 🚀 rocket, 😕 confused) to the issue or to the triggering comment; failures are reported, not thrown. */
export async function react(
  octokit: Octokit,
  issue: IssueRef,
  target: ReactionTarget,
  content: "eyes" | "rocket" | "confused",
  onError: (error: unknown) => void,
): Promise<void> {
  try {
    if (target.kind === "issue") {
      await octokit.rest.reactions.createForIssue({ owner: issue.owner, repo: issue.repo, issue_number: issue.number, content });
    } else if (target.kind === "comment") {
      await octokit.rest.reactions.createForIssueComment({ owner: issue.owner, repo: issue.repo, comment_id: target.id, content });
    } else {
      await octokit.rest.reactions.createForPullRequestReviewComment({ owner: issue.owner, repo: issue.repo, comment_id: target.id, content });
    }
  } catch (error) {
    onError(error);
  }
}

/**
 * Finds the status comment of job `jobId` on the issue by its hidden marker. Only comments by bots count: anyone can
 * paste the marker into a comment of their own, which the bot must never take over and rewrite.
 */
export async function findStatusComment(octokit: Octokit, issue: IssueRef, jobId: number): Promise<{ id: number; body: string } | null> {
  const comments = await octokit.paginate(octokit.rest.issues.listComments, { owner: issue.owner, repo: issue.repo, issue_number: issue.number, per_page: 100 });
  const found = comments.find((c) => c.user?.type === "Bot" && readStatusMarker(c.body) === jobId);
  return found ? { id: found.id, body: found.body ?? "" } : null;
}
