import type { Context } from "probot";
import type { BotIdentity } from "../github/types.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { SessionStore } from "../store/sessions.js";
import type { JobStore } from "../store/store.js";
import type { Decision } from "../store/triggers.js";
import type { RecentRefusals } from "./recent-refusals.js";

/** The webhook events (with their actions) the app's rules listen to. */
export type RuleEvent =
  | "issues.labeled"
  | "issues.unlabeled"
  | "issues.closed"
  | "issue_comment.created"
  | "pull_request_review.submitted"
  | "check_suite.completed"
  | "workflow_run.completed";

/**
 * One kind of trigger, typed by its event with octokit's webhook payload types: `wants` looks at the payload alone (no
 * call to GitHub) and says whether the delivery may be a trigger at all; `decide` does the checks that need GitHub
 * (config, permission, the pull request) and queues a job. Written as methods, so a rule of one event is a rule the
 * desk can hold beside rules of others; the desk hands each rule only deliveries of its own event.
 */
export interface TriggerRule<E extends RuleEvent = RuleEvent> {
  /** `event.action`, as Probot names it: `issues.labeled`. */
  event: E;
  wants(payload: Context<E>["payload"]): boolean;
  /** Taken from bots too (an issue closed by a bot still stops its run); other triggers from bots, the app's own included, are ignored. */
  fromBots?: boolean;
  /** `receivedAt`: when the webhook arrived (ISO 8601), the moment of the trigger where the payload has none. */
  decide(context: Context<E>, receivedAt: string): Promise<Decision>;
}

/** What the rules use: the queue their jobs go to, the app's bot identity, and the senders refused lately. */
export interface RuleServices {
  queue: JobQueue;
  bot: () => Promise<BotIdentity>;
  refusals: RecentRefusals;
  /** Where running jobs are steered (`/magis go`): their records and sessions; absent, a go is answered that nothing waits. */
  steering?: { jobs: JobStore; sessions: SessionStore };
}
