import type { MagisConfig } from "../../config.js";
import { StageError } from "../../pipeline/errors.js";
import { neutralizeClosingReferences } from "../../lib/markdown.js";
import type { ResolveResult } from "../../pipeline/types.js";
import type { Checkout } from "../../git/checkout.js";
import { protectedPathMatcher } from "../../lib/protected-paths.js";
import { chooseBranch } from "../branches/choose-branch.js";
import type { PullUpdate } from "../branches/move-branch.js";
import { CommitRefusedError, WORKFLOW_NEXT_STEP, workflowRefusal } from "./commit-refused-error.js";
import { commitAndOpenPull, type ApiCommitRequest, type OpenedPull, type PullToOpen } from "./commit-through-api.js";
import { postReportParts } from "./post-report-parts.js";
import { renderDescription, splitReport } from "./split-report.js";
import type { BotIdentity, Octokit } from "../types.js";

/** What publishing needs: where, the change, and the pull request description. */
export interface PublishInput {
  octokit: Octokit;
  repo: { owner: string; repo: string };
  issue: { number: number; title: string };
  checkout: Checkout;
  /** The repository's GraphQL node id (see openRepository). */
  repositoryId: string;
  defaultBranch: string;
  config: MagisConfig;
  bot: BotIdentity;
  changes: ResolveResult["changes"];
  /** The pull request description (the run report). */
  body: string;
  /** Aborted when the job was cancelled or ran out of time: checked right before the commit and before the pull request. */
  signal?: AbortSignal;
  /**
   * Whether merging the change resolves the issue: `Fixes #N` then closes it; otherwise (protected files still need a
   * person) the pull request and commit say `Part of #N` and the issue stays open.
   */
  closesIssue: boolean;
  /**
   * Told when the follow-up comments of a report too long for the description could not all be posted, once the
   * pull request exists (the run has published by then); absent: thrown.
   */
  onError?: (error: unknown) => void;
}

/** The pull request that now carries the change. */
export interface Published {
  url: string;
  number: number;
  branch: string;
  commit: string;
  /** True when an existing bot pull request was updated rather than a new one opened. */
  updated: boolean;
}

/**
 * Commits the change as one commit by the app (through the API, so GitHub signs it) on a bot branch cut from the
 * default branch head, then opens the pull request (`Fixes #N`, or `Part of #N`, in its body), or updates the bot's
 * open pull request for that branch. A report longer than the description takes goes on in comments it links to.
 */
export async function publishPullRequest(input: PublishInput): Promise<Published> {
  const { octokit, repo, issue, config } = input;
  const changes = input.changes.filter((c) => c.after !== c.before);
  if (changes.length === 0) {
    throw new StageError("publish", "The run produced no change to any file, so nothing was pushed.", "Add guidance with `/magis retry <what to change>`.");
  }
  const isProtected = protectedPathMatcher(config.protected_paths);
  const forbidden = changes.filter((c) => isProtected(c.path)).map((c) => c.path);
  if (forbidden.length > 0) {
    throw new StageError(
      "publish",
      `The change touches protected paths (${forbidden.join(", ")}), so nothing was pushed.`,
      "Protected files are changed by people only; edit `protected_paths` in `.github/magis.yml` if this is wrong.",
    );
  }
  const { branch, head } = await chooseBranch(octokit, repo, {
    defaultBranch: input.defaultBranch,
    prefix: config.branch_prefix,
    issueNumber: issue.number,
    bot: input.bot,
  });
  // Read before the commit, since reads wait for no write. A branch not there yet has no open pull request: GitHub
  // closes a pull request whose head branch is deleted.
  const existing = head === null ? undefined : await findOpenPull(octokit, repo, branch);
  // The last moment a cancelled or timed-out job can still leave nothing behind.
  input.signal?.throwIfAborted();
  const reference = `${input.closesIssue ? "Fixes" : "Part of"} #${issue.number}`;
  const report = splitReport(input.body.includes(reference) ? input.body : `${reference}\n\n${input.body}`);
  const body = renderDescription(report.head, report.parts.length);
  const title = issue.title.trim();
  // A new branch's pull request is opened in the commit's own request where it goes through GraphQL: one write.
  const { commit, pull: opened } = await commitOnBranch(
    {
      octokit,
      repo,
      repositoryId: input.repositoryId,
      checkout: input.checkout,
      branch,
      changes,
      // The issue's title is anyone's text: a "fixes #3" in it must not close issue 3 when this commit is merged.
      message: `${neutralizeClosingReferences(issue.title.trim())} (#${issue.number})\n\nChanged by MAGIS: ${changes.map((c) => c.path).join(", ")}.\n\n${reference}`,
      // A new branch must still not exist; the bot's own branch is replaced whole only while it is where it was checked.
      lease: { head, force: head !== null },
      guard: { prefix: config.branch_prefix, defaultBranch: input.defaultBranch, protectedPaths: config.protected_paths },
    },
    existing ? null : { base: input.defaultBranch, title, body, draft: config.draft },
    // The bot's open pull request is updated in the request that moves its branch: one write fewer.
    existing && { id: existing.node_id, number: existing.number, title, body, before: { title: existing.title, body: existing.body } },
  );
  let pull: { html_url: string; number: number };
  if (existing && opened && !("refused" in opened)) {
    pull = { html_url: opened.url, number: opened.number };
  } else if (existing) {
    pull = (await octokit.rest.pulls.update({ ...repo, pull_number: existing.number, title, body })).data;
  } else if (opened && "refused" in opened) {
    throw pullRefused(branch, opened.refused.join("; "), undefined);
  } else if (opened) {
    pull = { html_url: opened.url, number: opened.number };
  } else {
    input.signal?.throwIfAborted();
    pull = (await createPull(octokit, { ...repo, head: branch, base: input.defaultBranch, title, body, draft: config.draft })).data;
  }
  // An updated pull request may hold an earlier report's comments, which are reused or marked unused.
  if (report.parts.length > 0 || existing) {
    try {
      const where = { ...repo, number: pull.number, url: pull.html_url, bot: input.bot.login, earlier: existing !== undefined };
      const links = await postReportParts(octokit, where, report.parts);
      if (links.length > 0) await octokit.rest.pulls.update({ ...repo, pull_number: pull.number, body: renderDescription(report.head, links.length, links) });
    } catch (error) {
      if (!input.onError) throw error;
      input.onError(error);
    }
  }
  return { url: pull.html_url, number: pull.number, branch, commit, updated: existing !== undefined };
}

/** The open pull request from the bot's branch, if there is one. */
async function findOpenPull(octokit: Octokit, repo: PublishInput["repo"], branch: string) {
  const { data: open } = await octokit.rest.pulls.list({ ...repo, head: `${repo.owner}:${branch}`, state: "open", per_page: 1 });
  return open[0];
}

/** Opens the pull request through REST (the commit went through the Git Data API); a refusal says what to do (pullRefused). */
async function createPull(octokit: Octokit, request: Parameters<Octokit["rest"]["pulls"]["create"]>[0] & { head: string }) {
  try {
    return await octokit.rest.pulls.create(request);
  } catch (error) {
    const { status, message } = error as { status?: number; message?: string };
    if (status !== 403 || !/not permitted to create or approve pull requests/i.test(message ?? "")) throw error;
    throw pullRefused(request.head, message ?? "", error);
  }
}

/**
 * GitHub's refusal to open the pull request once the commit is on `branch`, as an error. A workflow token may not open
 * one until the repository (or organization) allows GitHub Actions to create pull requests, which it does not by
 * default (GitHub says so in the same words through REST and GraphQL): that refusal says which setting to change.
 */
function pullRefused(branch: string, message: string, cause: unknown): Error {
  if (!/not permitted to create or approve pull requests/i.test(message)) {
    return new Error(`The commit is on the branch '${branch}', but GitHub refused to open its pull request: ${message}`, { cause });
  }
  return new StageError(
    "publish",
    `The commit is on the branch \`${branch}\`, but GitHub refused to let the workflow's token open the pull request (GitHub Actions is not permitted to create pull requests in this repository).`,
    'Turn on Settings → Actions → General → "Allow GitHub Actions to create and approve pull requests" (for an organization, its own Actions settings first), or pass an app token as `github_token`; then run again (the branch is reused).',
    { cause },
  );
}

/**
 * Commits through the API; a refusal by GitHub (a branch rule, a ruleset, a workflow file without the `workflows`
 * permission) becomes a publish failure saying what to do.
 */
async function commitOnBranch(request: ApiCommitRequest, pull: PullToOpen | null, update?: PullUpdate): Promise<{ commit: string; pull: OpenedPull | null }> {
  try {
    return await commitAndOpenPull(request, pull, update);
  } catch (error) {
    const workflows = workflowRefusal(
      error,
      request.branch,
      request.changes.map((c) => c.path),
    );
    if (workflows) throw new StageError("publish", workflows, WORKFLOW_NEXT_STEP, { cause: error });
    if (!(error instanceof CommitRefusedError)) throw error;
    throw new StageError(
      "publish",
      `${error.message.replace(/\.$/, "")}.`,
      `Let the app create and update branches named \`${request.guard.prefix}…\` (branch protection rules, rulesets), or change \`branch_prefix\` in .github/magis.yml, then run again.`,
      { cause: error },
    );
  }
}
