import type { Context } from "probot";
import type { JobQueue } from "../jobs/job-queue.js";
import { hasPermission } from "./check-permission.js";
import { cleanText } from "./clean-text.js";
import { loadConfig, renderConfigProblems } from "./load-config.js";
import { submitReviseJob } from "./submit-revise-job.js";
import type { BotIdentity, Octokit } from "./types.js";

/** The guidance of a `/magis revise` comment (everything after the command, all lines), or null when the comment is not one. */
export function parseReviseCommand(body: string): { guidance: string } | null {
  const match = /^\/magis\s+revise(?:[ \t]+|\n|$)([\s\S]*)$/i.exec(cleanText(body));
  return match ? { guidance: (match[1] ?? "").trim() } : null;
}

/**
 * `issue_comment.created`: `/magis revise [guidance]` on an open pull request the app opened, by someone allowed, queues a
 * revision: of the guidance, or without guidance of the latest review again.
 */
export function onReviseComment(queue: JobQueue, bot: (octokit: Octokit) => Promise<BotIdentity>) {
  return async (context: Context<"issue_comment.created">): Promise<void> => {
    const { issue, comment, sender, installation } = context.payload;
    if (context.isBot || !installation || !issue.pull_request) return;
    const command = parseReviseCommand(comment.body);
    if (!command || issue.state !== "open") return;
    const reply = (body: string) => context.octokit.rest.issues.createComment(context.issue({ body }));
    const { data: pull } = await context.octokit.rest.pulls.get(context.repo({ pull_number: issue.number }));
    const loaded = await loadConfig(context);
    if (!loaded.ok) {
      await reply(renderConfigProblems(loaded.error));
      return;
    }
    const { config } = loaded;
    const ownPull =
      pull.user?.login === (await bot(context.octokit)).login &&
      pull.head.ref.startsWith(config.branch_prefix) &&
      pull.head.repo?.full_name === pull.base.repo.full_name;
    if (!ownPull) {
      await reply(`@${sender.login} \`/magis revise\` works on pull requests MAGIS opened from its \`${config.branch_prefix}…\` branches only.`);
      return;
    }
    if (!(await hasPermission(context.octokit, context.repo(), sender.login, config.allowed_permissions))) {
      await reply(`@${sender.login} only people with ${config.allowed_permissions.join(", ")} permission on this repository may run \`/magis revise\`.`);
      return;
    }
    await submitReviseJob(context, queue, {
      pullNumber: issue.number,
      headRef: pull.head.ref,
      payload: {
        config,
        trigger: `@${sender.login} commented \`/magis revise\`${command.guidance ? " with guidance" : ""}`,
        reviewBody: "",
        guidance: command.guidance,
        commentId: comment.id,
        reviewer: sender.login,
      },
    });
  };
}
