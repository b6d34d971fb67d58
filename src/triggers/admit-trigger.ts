import type { Context } from "probot";
import type { MagisConfig } from "../config.js";
import { postIssueComment } from "../github/publish/post-issue-comment.js";
import { hasPermission } from "../github/read/check-permission.js";
import type { Decision } from "../store/triggers.js";
import { configForTrigger } from "./config-for-trigger.js";
import type { RecentRefusals } from "./recent-refusals.js";

/** The events a person sends to ask for a run: a label, a command in a comment, a review. */
type AskingEvent = "issues.labeled" | "issue_comment.created" | "pull_request_review.submitted";

/**
 * How a trigger answers a sender without permission: a command addressed to the bot (`answer`, the command) gets a
 * reply on the issue and is declined; anything else (`ignore`, what the sender did) is passed over without a word.
 */
export type Refusal = { answer: string } | { ignore: string };

/** What one rule asks of the shared checks. */
export interface Admission<E extends AskingEvent> {
  /** The issue or pull request a broken config is answered on. */
  number: number;
  /** Whether a broken config is answered at all, given the label the broken file names (default: always). */
  answersBrokenConfig?: (brokenLabel: string) => boolean;
  /** The rule's own check of the trigger against the config, before the sender's permission: a decision ends it. */
  matches?: (config: MagisConfig, context: Context<E>) => Decision | null;
  refusal: Refusal;
  /** The senders refused lately: one refused on this issue within the hour is passed over without a call or a word. */
  refusals: RecentRefusals;
}

/**
 * The checks every trigger from a person makes, written once and in this order: the repository's config (a broken
 * one is answered with its problems), the rule's own check against it, then the sender's permission. Returns the
 * config, or the decision that ends the trigger.
 */
export async function admitTrigger<E extends AskingEvent>(
  context: Context<E>,
  admission: Admission<E>,
): Promise<{ ok: true; config: MagisConfig } | { ok: false; decision: Decision }> {
  const sender = context.payload.sender.login;
  const { owner, repo } = context.repo();
  const issue = `${owner}/${repo}#${admission.number}`;
  if (admission.refusals.has(issue, sender)) {
    return {
      ok: false,
      decision: { outcome: "ignored", detail: `@${sender} was refused on #${admission.number} within the hour; not checked or answered again` },
    };
  }
  const loaded = await configForTrigger(context, admission.number, admission.answersBrokenConfig);
  if (!loaded.ok) return loaded;
  const { config } = loaded;
  const mismatch = admission.matches?.(config, context);
  if (mismatch) return { ok: false, decision: mismatch };
  if (await hasPermission(context.octokit, context.repo(), sender, config.allowed_permissions)) return loaded;
  admission.refusals.add(issue, sender);
  const who = config.allowed_permissions.join(", ");
  const { refusal } = admission;
  if ("ignore" in refusal) return { ok: false, decision: { outcome: "ignored", detail: `@${sender} ${refusal.ignore} without ${who} permission` } };
  await postIssueComment(
    context.octokit,
    { owner, repo, number: admission.number },
    `@${sender} only people with ${who} permission on this repository may run \`${refusal.answer}\`.`,
  );
  return { ok: false, decision: { outcome: "declined", detail: `@${sender} has none of ${who} permission` } };
}
