import type { Context } from "probot";
import { configForTrigger } from "../config-for-trigger.js";
import { capBody } from "../../github/publish/fit-body.js";
import { postIssueComment } from "../../github/publish/post-issue-comment.js";
import { readCommit } from "../../github/read/read-commit.js";
import { readIssueComments } from "../../github/read/read-issue-comments.js";
import { readPullRequest } from "../../github/read/read-pull-request.js";
import { listFailedChecks } from "../../github/read/read-ci-failures.js";
import { checkNames } from "../../github/read/render-ci-failures.js";
import { CI_FIX_TRAILER } from "../../jobs/kinds/revise/ci-fix-trailer.js";
import { submitReviseJob } from "../../jobs/kinds/revise/submit.js";
import type { Decision } from "../../store/triggers.js";
import type { RuleServices, TriggerRule } from "../trigger-rule.js";

/** A finished CI run, as either event tells it. */
interface CiRun {
  headSha: string;
  headBranch: string | null;
  conclusion: string | null;
  pulls: { number: number; head: { ref: string; sha: string } }[];
  /** What ran, for the status comment: the CI app's name, or the workflow's. */
  source: string;
  /** This run of the CI on the commit: the same for a redelivery, new when the jobs are re-run. */
  run: string;
}

type CiEvent = "check_suite.completed" | "workflow_run.completed";

const FAILED = new Set(["failure", "timed_out"]);

/**
 * CI finished on a pull request's head: `check_suite.completed` for the App (one event per CI app and commit, so every
 * CI that reports checks is seen, GitHub Actions included) and `workflow_run.completed` for the Action (GitHub starts
 * no workflow on the check suites of GitHub Actions, so a workflow can only listen to its sibling workflows' runs).
 * A failure on the bot's own latest commit of the bot's pull request queues a revision whose feedback is the failure;
 * each fix is numbered in its commit, and after `ci_fix_attempts` one comment says what still fails. A success, a
 * person's commit, another pull request, an outdated commit or a second event for the same commit does nothing.
 */
export function onCiCompleted({ queue, bot }: RuleServices): [TriggerRule<"check_suite.completed">, TriggerRule<"workflow_run.completed">] {
  // CI events come from bots (the CI app, the bot's own push), and come for every push: only failures are recorded.
  const wanted = (run: CiRun) => FAILED.has(run.conclusion ?? "") && run.headBranch !== null && run.pulls.some((p) => p.head.ref === run.headBranch);
  // A re-requested check suite keeps its id and completes again later; a re-run workflow counts its attempts.
  const suite = (payload: Context<"check_suite.completed">["payload"]): CiRun => ({
    ...fieldsOf(payload.check_suite),
    source: payload.check_suite.app?.name ?? "a CI app",
    run: `suite ${payload.check_suite.id} at ${payload.check_suite.updated_at}`,
  });
  const workflow = (payload: Context<"workflow_run.completed">["payload"]): CiRun => ({
    ...fieldsOf(payload.workflow_run),
    source: `the workflow “${payload.workflow_run.name}”`,
    run: `run ${payload.workflow_run.id} attempt ${payload.workflow_run.run_attempt ?? 1}`,
  });
  return [
    {
      event: "check_suite.completed",
      fromBots: true,
      wants: (payload) => wanted(suite(payload)),
      decide: (context) => decide(context, suite(context.payload), { queue, bot }),
    },
    {
      event: "workflow_run.completed",
      fromBots: true,
      wants: (payload) => wanted(workflow(payload)),
      decide: (context) => decide(context, workflow(context.payload), { queue, bot }),
    },
  ];
}

/** The fields both events carry alike, from the check suite or the workflow run. */
function fieldsOf(run: {
  head_sha: string;
  head_branch: string | null;
  conclusion: string | null;
  // GitHub's description of a workflow run allows null entries here: they name no pull request.
  pull_requests: ({ number: number; head: { ref: string; sha: string } } | null)[];
}): Omit<CiRun, "source" | "run"> {
  const pulls = (run.pull_requests ?? []).filter((pull) => pull !== null);
  return { headSha: run.head_sha, headBranch: run.head_branch ?? null, conclusion: run.conclusion ?? null, pulls };
}

async function decide(context: Context<CiEvent>, run: CiRun, { queue, bot }: Pick<RuleServices, "queue" | "bot">): Promise<Decision> {
  const pr = run.pulls.find((p) => p.head.ref === run.headBranch)!;
  // No one asked for this run: a broken config is not worth a comment here (the next label or command says it).
  const loaded = await configForTrigger(context, pr.number, () => false);
  if (!loaded.ok) return loaded.decision;
  const { config } = loaded;
  if (!run.headBranch!.startsWith(config.branch_prefix))
    return { outcome: "ignored", detail: `the branch is not one of the app's \`${config.branch_prefix}…\` branches` };
  if (config.ci_fix_attempts === 0) return { outcome: "ignored", detail: "ci_fix_attempts is 0 in .github/magis.yml" };
  const me = await bot();
  const pull = await readPullRequest(context.octokit, { ...context.repo(), number: pr.number });
  if (pull.author !== me.login) return { outcome: "ignored", detail: `pull request #${pr.number} was not opened by the app` };
  if (pull.state !== "open") return { outcome: "ignored", detail: `pull request #${pr.number} is ${pull.state}` };
  if (pull.head.sha !== run.headSha) {
    return {
      outcome: "ignored",
      detail: `CI ran on ${run.headSha.slice(0, 7)}, but the branch has moved to ${pull.head.sha.slice(0, 7)}; only its latest commit's CI counts`,
    };
  }
  const commit = await readCommit(context.octokit, context.repo(), run.headSha);
  if (commit.authorLogin !== me.login) {
    return {
      outcome: "ignored",
      detail: `the head commit ${run.headSha.slice(0, 7)} is @${commit.authorLogin ?? commit.authorName ?? "someone"}'s, not the app's: a person's push is theirs to fix`,
    };
  }
  const previous = new RegExp(`^${CI_FIX_TRAILER}: (\\d+)$`, "m").exec(commit.message);
  const attempt = previous ? Number(previous[1]) + 1 : 1;
  if (attempt > config.ci_fix_attempts) return giveUp(context, pr.number, run.headSha, config.ci_fix_attempts);
  return submitReviseJob(context, queue, {
    pullNumber: pr.number,
    headRef: run.headBranch!,
    // One job per run of the CI, however often it is reported (a redelivery, a duplicate): a re-run after a failure that
    // looked unrelated gets its own. A second CI app's failure of the same commit waits behind the first fix, and does
    // nothing once that fix has moved the branch.
    delivery: `ci-fix:${context.repo().owner}/${context.repo().repo}@${run.headSha} ${run.run}`,
    payload: {
      config,
      trigger: `CI failed on ${run.headSha.slice(0, 7)} (${run.source})`,
      reviewBody: "",
      guidance: "",
      reviewer: me.login,
      ci: { headSha: run.headSha, attempt, of: config.ci_fix_attempts },
    },
  });
}

/** After the last attempt: one comment (per commit) that says what still fails, and nothing more. */
async function giveUp(context: Context<CiEvent>, number: number, sha: string, attempts: number): Promise<Decision> {
  const marker = `<!-- magis:ci-gave-up sha=${sha} -->`;
  const comments = await readIssueComments(context.octokit, { ...context.repo(), number });
  if (comments.some((c) => c.body.includes(marker))) return { outcome: "ignored", detail: `CI still fails on ${sha.slice(0, 7)}; that was said already` };
  const failed = await listFailedChecks(context.octokit, context.repo(), sha);
  const body = [
    marker,
    `### ❌ CI still fails after ${attempts} ${attempts === 1 ? "attempt" : "attempts"} by MAGIS`,
    "",
    `Failing on ${sha.slice(0, 7)}: ${checkNames(failed)}.`,
    "",
    "MAGIS stops trying here. Push a fix yourself, or say what to change with `/magis revise <what to change>` (or a review).",
  ].join("\n");
  await postIssueComment(context.octokit, { ...context.repo(), number }, capBody(body));
  return { outcome: "declined", detail: `CI still fails after ${attempts} fix attempts; said so on #${number}` };
}
