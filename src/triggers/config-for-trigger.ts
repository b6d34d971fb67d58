import type { Context } from "probot";
import { parseConfig, type MagisConfig } from "../config.js";
import { hasPermission } from "../github/read/check-permission.js";
import { capBody } from "../github/publish/fit-body.js";
import { postIssueComment } from "../github/publish/post-issue-comment.js";
import { loadConfig, renderConfigProblems } from "../github/client/load-config.js";
import type { Decision } from "../store/triggers.js";
import type { RuleEvent } from "./trigger-rule.js";

const DEFAULT_PERMISSIONS = parseConfig({}).allowed_permissions;

/**
 * The repository's config for a trigger, or the decision that ends it. A broken config is answered with its problems,
 * on the issue or pull request `number`, to a sender who holds one of the default permissions only: the broken file's
 * own `allowed_permissions` cannot be trusted, and a passer-by learns nothing of it. `answer` is false for triggers
 * that were not meant for the bot (another label), which are passed over in silence.
 */
export async function configForTrigger(
  context: Context<RuleEvent>,
  number: number,
  answer: (brokenLabel: string) => boolean = () => true,
): Promise<{ ok: true; config: MagisConfig } | { ok: false; decision: Decision }> {
  const loaded = await loadConfig(context);
  if (loaded.ok) return loaded;
  const sender = context.payload.sender.login;
  if (!answer(loaded.label)) return { ok: false, decision: { outcome: "ignored", detail: "the config is invalid and this trigger was not meant for the bot" } };
  if (!(await hasPermission(context.octokit, context.repo(), sender, DEFAULT_PERMISSIONS))) {
    return { ok: false, decision: { outcome: "ignored", detail: `the config is invalid; @${sender} may not trigger runs, so the problems were not posted` } };
  }
  await postIssueComment(context.octokit, { ...context.repo(), number }, capBody(renderConfigProblems(loaded.error)));
  return { ok: false, decision: { outcome: "declined", detail: `the config is invalid: ${loaded.error.problems.length} problem(s), answered on #${number}` } };
}
