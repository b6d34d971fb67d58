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

/**
 * How long the status waits for its changes to stop before it edits the comment. GitHub paces writes a second apart,
 * so an edit sooner than that would wait anyway, and one asked in a run's last moments would put a second before the
 * commit behind it.
 */
export const STATUS_QUIET_MS = 1000;

/** The longest a change waits for a quiet moment while changes keep coming: the comment still moves on. */
export const STATUS_MAX_WAIT_MS = 5000;

/** What a status comment shows, and whom it tells of a failed post or edit. */
export interface StatusCommentOptions<S> {
  /** The state shown first. */
  state: S;
  /** Renders a state as the comment's body, now and at every edit. */
  render: (state: S) => string;
  /** Told of a failed post or edit, which is never thrown. */
  onError: (error: unknown) => void;
  /** How long changes must stop before an edit shows them (default STATUS_QUIET_MS). */
  quietMs?: number;
  /** The longest a change waits for that quiet (default STATUS_MAX_WAIT_MS). */
  maxWaitMs?: number;
}

/**
 * The one status comment of a run: posted when the run starts, then edited in place. Edits trail the changes: an edit
 * goes once the changes have stopped for `quietMs` (or `maxWaitMs` after the first one waiting), shows the newest
 * state rendered as it goes out, and only one is under way at a time, so a burst of progress events costs one API call
 * and no edit ever shows an older state after a newer one. `flush` sends the latest state at once (the run's end, its
 * failure, its cancellation), and tries once more when the last edit failed. When the first post fails (GitHub down
 * for a moment), the run goes on and every later edit tries to post it again, so the outcome still reaches the issue
 * once GitHub answers.
 */
export class StatusComment<S> {
  private inFlight: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** When the oldest change not yet shown was made, while one waits for its edit. */
  private waitingSince: number | null = null;
  private dirty = false;
  /** Whether the last post or edit failed: its state is still to show. */
  private lastFailed = false;
  private held = false;
  private commentId: number | null = null;
  private state: S;
  private readonly render: (state: S) => string;
  private readonly onError: (error: unknown) => void;
  private readonly quietMs: number;
  private readonly maxWaitMs: number;

  private constructor(
    private readonly octokit: Octokit,
    private readonly issue: IssueRef,
    { state, render, onError, quietMs = STATUS_QUIET_MS, maxWaitMs = STATUS_MAX_WAIT_MS }: StatusCommentOptions<S>,
  ) {
    this.state = state;
    this.render = render;
    this.onError = onError;
    this.quietMs = quietMs;
    this.maxWaitMs = maxWaitMs;
  }

  /** Posts the status comment of a new run, rendered by `render` now and at every edit; a failed post is reported, not thrown. */
  static async post<S>(octokit: Octokit, issue: IssueRef, options: StatusCommentOptions<S>): Promise<StatusComment<S>> {
    const status = new StatusComment(octokit, issue, options);
    status.dirty = true;
    status.sendNow();
    await status.inFlight;
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

  /** Changes the state and schedules an edit once changes stop (unless edits are held); returns without waiting for it. */
  update(change: (state: S) => S): void {
    this.state = change(this.state);
    this.dirty = true;
    this.waitingSince ??= Date.now();
    this.schedule();
  }

  /**
   * Holds edits until `release` or `flush`: updates change the state only, and the release shows them all in one edit.
   * An edit waiting for its quiet moment is held too. Publishing holds them, since each edit is a write GitHub's pacing
   * puts a second before the commit or the pull request behind it. An edit already under way still finishes.
   */
  hold(): void {
    this.held = true;
    this.cancelTimer();
  }

  /** Ends a hold: the state held back is shown in one edit at once, without waiting for it. */
  release(): void {
    this.held = false;
    this.cancelTimer();
    if (this.dirty && !this.inFlight) this.sendNow();
  }

  /**
   * Ends a hold, and waits until the comment shows the latest state, or the attempt to show it has failed and been
   * reported: a last edit that failed is tried once more, so a run's outcome is not lost to one bad answer.
   */
  async flush(): Promise<void> {
    let retries = 1;
    this.release();
    while (this.inFlight) {
      await this.inFlight;
      if (this.lastFailed && retries-- === 0) return;
      this.release();
    }
  }

  /** An edit after `quietMs` without changes, or at `maxWaitMs` after the oldest waiting one; none while held or under way. */
  private schedule(): void {
    if (this.held || this.inFlight) return;
    this.cancelTimer();
    const waited = Date.now() - (this.waitingSince ?? Date.now());
    const delay = Math.max(0, Math.min(this.quietMs, this.maxWaitMs - waited));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.sendNow();
    }, delay);
    // The run's end flushes; a timer alone must not keep a finished process (the Action's step) alive.
    this.timer.unref?.();
  }

  private cancelTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Sends the newest state in one post or edit; changes made meanwhile wait for their own quiet moment after it. */
  private sendNow(): void {
    this.dirty = false;
    this.waitingSince = null;
    this.inFlight = this.send().then((shown) => {
      this.inFlight = null;
      this.lastFailed = !shown;
      if (shown && this.dirty) this.schedule();
    });
  }

  /** Posts or edits the comment; false when GitHub refused or did not answer (reported to onError). */
  private async send(): Promise<boolean> {
    try {
      // The marker opens the body, so a cut one is still found again.
      const body = capBody(this.render(this.state));
      if (this.commentId === null) {
        this.commentId = (await postIssueComment(this.octokit, this.issue, body)).id;
      } else {
        await editIssueComment(this.octokit, this.issue, this.commentId, body);
      }
      return true;
    } catch (error) {
      // A status edit that fails must not fail the run. The state stays unshown: the next change's edit, or the
      // run's flush, carries it again; no timer retries on its own, so GitHub down is not asked every second.
      this.dirty = true;
      this.waitingSince = null;
      this.onError(error);
      return false;
    }
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
