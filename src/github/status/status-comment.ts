import { capBody } from "../publish/fit-body.js";
import { readIssueComments } from "../read/read-issue-comments.js";
import { editIssueComment } from "../publish/edit-issue-comment.js";
import { postIssueComment } from "../publish/post-issue-comment.js";
import type { IssueRef, Octokit } from "../types.js";

/** The hidden marker that finds the status comment of job `jobId` again. */
export function statusMarker(jobId: number): string {
  return `<!-- magis:status job=${jobId} -->`;
}

/** Reads the job id back from a comment body carrying a status marker, or null. */
export function readStatusMarker(body: string | null | undefined): number | null {
  const match = /<!-- magis:status job=(\d+) -->/.exec(body ?? "");
  return match ? Number(match[1]) : null;
}

/** Where a reaction goes: the issue itself, the comment that triggered the run, or an inline review comment. */
export type ReactionTarget = { kind: "issue" } | { kind: "comment"; id: number } | { kind: "review-comment"; id: number };

/** What a status comment shows, and whom it tells of a failed post or edit. */
export interface StatusCommentOptions<S> {
  /** The state shown first. */
  state: S;
  /** Renders a state as the comment's body, now and at every edit. */
  render: (state: S) => string;
  /** Told of a failed post or edit, which is never thrown. */
  onError: (error: unknown) => void;
}

/**
 * The one status comment of a run: posted when the run starts, then edited in place. Edits are serialized and
 * coalesced (the latest state wins), so a burst of progress events costs a few API calls, not one each. When the
 * first post fails (GitHub down for a moment), the run goes on and every later update tries to post it again, so
 * the outcome still reaches the issue once GitHub answers.
 */
export class StatusComment<S> {
  private inFlight: Promise<void> | null = null;
  private dirty = false;
  private held = false;
  private commentId: number | null = null;
  private state: S;
  private readonly render: (state: S) => string;
  private readonly onError: (error: unknown) => void;

  private constructor(
    private readonly octokit: Octokit,
    private readonly issue: IssueRef,
    { state, render, onError }: StatusCommentOptions<S>,
  ) {
    this.state = state;
    this.render = render;
    this.onError = onError;
  }

  /** Posts the status comment of a new run, rendered by `render` now and at every edit; a failed post is reported, not thrown. */
  static async post<S>(octokit: Octokit, issue: IssueRef, options: StatusCommentOptions<S>): Promise<StatusComment<S>> {
    const status = new StatusComment(octokit, issue, options);
    status.dirty = true;
    await (status.inFlight = status.pushEdits());
    return status;
  }

  /** The state shown (or about to be). */
  get current(): S {
    return this.state;
  }

  /** Whether the comment exists on GitHub (its first post, or a later one, went through). */
  get posted(): boolean {
    return this.commentId !== null;
  }

  /** Changes the state and schedules an edit (unless edits are held); returns without waiting for it. */
  update(change: (state: S) => S): void {
    this.state = change(this.state);
    this.dirty = true;
    if (!this.inFlight && !this.held) this.inFlight = this.pushEdits();
  }

  /**
   * Holds edits until `release` or `flush`: updates change the state only, and the release shows them all in one edit. Publishing holds
   * them, since each edit is a write GitHub's pacing puts a second before the commit or the pull request behind it.
   * An edit already under way still finishes.
   */
  hold(): void {
    this.held = true;
  }

  /** Ends a hold: the state held back is shown in one edit, without waiting for it. */
  release(): void {
    this.held = false;
    if (this.dirty && !this.inFlight) this.inFlight = this.pushEdits();
  }

  /** Ends a hold, and waits until the comment shows the latest state (or the attempt to show it has failed and been reported). */
  async flush(): Promise<void> {
    this.release();
    while (this.inFlight) await this.inFlight;
  }

  private async pushEdits(): Promise<void> {
    while (this.dirty && !this.held) {
      this.dirty = false;
      try {
        // The marker opens the body, so a cut one is still found again.
        const body = capBody(this.render(this.state));
        if (this.commentId === null) {
          this.commentId = (await postIssueComment(this.octokit, this.issue, body)).id;
        } else {
          await editIssueComment(this.octokit, this.issue, this.commentId, body);
        }
      } catch (error) {
        // A status edit that fails must not fail the run; the next edit carries the whole state again.
        this.onError(error);
      }
    }
    this.inFlight = null;
  }
}

/** One reaction to add, and whom to tell when adding it fails. */
export interface Reaction {
  target: ReactionTarget;
  content: "eyes" | "rocket" | "confused";
  /** Told of the failure, which is never thrown. */
  onError: (error: unknown) => void;
}

/** Adds a reaction (👀 eyes, 🚀 rocket, 😕 confused) to the issue or to the triggering comment; failures are reported, not thrown. */
export async function react(octokit: Octokit, issue: IssueRef, reaction: Reaction): Promise<void> {
  const { target, content, onError } = reaction;
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
  const comments = await readIssueComments(octokit, issue);
  const found = comments.find((c) => c.byBot && readStatusMarker(c.body) === jobId);
  return found ? { id: found.id, body: found.body } : null;
}
