import type { MagisConfig } from "../../../config.js";
import { StageError } from "../../../pipeline/errors.js";
import type { revisePullRequest } from "../../../pipeline/index.js";
import type { RevisionResult } from "../../../pipeline/revise/types.js";
import type { ProgressEvent } from "../../../pipeline/types.js";
import { progressEntry, resultEntry } from "../../../session/record/progress-entry.js";
import type { Checkout } from "../../../git/checkout.js";
import { withShallowClone } from "../../../git/clone-repository.js";
import { answerRevision } from "./answer-revision.js";
import { CI_FIX_TRAILER } from "./ci-fix-trailer.js";
import { readCiFeedback, type CiFixStatus } from "../../../github/read/read-ci-feedback.js";
import { hasPermission } from "../../../github/read/check-permission.js";
import { commitThroughApi } from "../../../github/publish/commit-through-api.js";
import { WORKFLOW_NEXT_STEP, workflowRefusal } from "../../../github/publish/commit-refused-error.js";
import { REVISE_PULL_REQUEST } from "../../explain-failure.js";
import { BranchMovedError } from "../../../github/branches/move-branch.js";
import { openRepository, packLimit } from "../../../github/client/open-repository.js";
import { readBranchHead } from "../../../github/branches/read-branch-head.js";
import { readChangedFiles, readLatestReview, readReviewComments } from "../../../github/read/read-review-feedback.js";
import { readPullRequest } from "../../../github/read/read-pull-request.js";
import { readRevisionIssue } from "../../../github/read/read-revision-issue.js";
import { renderRevisionStatus, startRevisionStatus, type RevisionStatus } from "./render-status.js";
import { stageContext } from "../../stage-context.js";
import { issueAsTriggered } from "../resolve/issue-as-triggered.js";
import type { ResolveJobServices } from "../resolve/run.js";
import type { JobStore } from "../../../store/store.js";
import type { JobKind } from "../../run-job.js";
import { revisePayload, type ReviseJobPayload } from "./payload.js";
import { trackProgress } from "../../track-status.js";
import type { IssueRef, Octokit } from "../../../github/types.js";

/** What a revision job uses: the resolve job's parts, with the revision pipeline in place of the resolve one. */
export type ReviseJobServices = Omit<ResolveJobServices, "resolve" | "memory"> & {
  revise: typeof revisePullRequest;
  /** The job records: a revision reads its issue as the trigger of the pull request's run carried it (see issueAsTriggered). */
  jobs?: JobStore;
};

/**
 * The `revise-pull-request` job: within its status comment on the pull request (see runJob),
 *  1. read the pull request (open, its branch still there), the review's inline comments, the changed files and the linked issue;
 *  2. shallow-clone the pull request's head branch; 3. revise (Manager triage, Developers and QA with the reviewer's words);
 *  4. commit on top of the head through the API — never a forced update; 5. reply in each thread, extend the description's
 *  revision history, and turn the status comment into the summary.
 */
export function reviseKind(services: ReviseJobServices): JobKind<ReviseJobPayload, RevisionStatus> {
  return {
    name: "revise-pull-request",
    payload: revisePayload,
    rerun: REVISE_PULL_REQUEST,
    firstStage: "read",
    start: (job, payload) => ({ ...startRevisionStatus(job.id, payload.trigger), sessionUrl: services.sessionUrl?.(job.id) }),
    render: renderRevisionStatus,
    target: (payload) => (payload.commentId ? { kind: "comment", id: payload.commentId } : null),
    steps: async (run, job, payload) => {
      const { config } = run;
      const pullRef = { owner: job.owner, repo: job.repo, number: job.number };
      const repo = { owner: job.owner, repo: job.repo };
      // 1. The pull request, the feedback, and the issue it resolves.
      const { octokit, token, status } = run;
      const pull = await readOpenPullRequest(octokit, pullRef);
      const headRef = pull.head.ref;
      const finish = (done: NonNullable<RevisionStatus["done"]>, succeeded = done.commit !== null) => {
        status.update((s) => ({ ...s, declined: done.result?.declined, done }));
        return { detail: done.commit ? `${pull.url} revised in ${done.commit}` : `${pull.url}: no change`, succeeded, pullRequest: pull.url };
      };
      // Nothing to do is a success when there was nothing to fix (a moot CI failure), not when feedback was missing.
      const nothing = (note: string, succeeded = false) => finish({ commit: null, parent: pull.head.sha, branch: headRef, result: null, note }, succeeded);
      // A CI fix is for the commit CI failed on: a push since (a person's, or a newer run's) makes it moot.
      const moved = (head: string) =>
        nothing(`the branch moved to ${head.slice(0, 7)} after CI failed on ${payload.ci!.headSha.slice(0, 7)}, so that failure is not fixed here`, true);
      if (payload.ci && pull.head.sha !== payload.ci.headSha) return moved(pull.head.sha);
      const ci = payload.ci ? await readCiFeedback(octokit, repo, payload.ci, [token]) : undefined;
      if (ci) status.update((s) => ({ ...s, ci: ci.status }));
      if (ci?.note) return nothing(ci.note, true);
      const { comments, general } = ci ? { comments: [], general: ci.general } : await readFeedback(octokit, pullRef, payload, config);
      if (!payload.commentId && comments[0]) await run.setTarget({ kind: "review-comment", id: comments[0].id });
      const files = new Set(comments.map((c) => c.path)).size;
      status.update((s) => ({ ...s, feedback: { comments: comments.length, files, general: general.length } }));
      if (comments.length === 0 && general.length === 0) {
        return nothing(
          "there is no feedback to act on (no review text, no inline comments, no guidance); write what to change in a review, or comment `/magis revise <what to change>`",
        );
      }
      const changedFiles = await readChangedFiles(octokit, pullRef);
      const hints = { authors: config.hint_authors, allowed: config.allowed_permissions, until: payload.triggeredAt };
      const issue = await readRevisionIssue(octokit, repo, {
        pull: { number: pull.number, title: pull.title, body: pull.body, headRef },
        prefix: config.branch_prefix,
        hints,
        ...(services.jobs && { asTriggered: issueAsTriggered(services.jobs, repo) }),
      });

      // 2. The checkout of the head branch.
      run.enter("clone");
      const { url, defaultBranch, nodeId } = await openRepository(octokit, repo, {
        config,
        gitBaseUrl: services.gitBaseUrl,
        rerunCommand: REVISE_PULL_REQUEST.command,
      });
      const remote = { url, token, idleTimeoutMs: services.gitIdleTimeoutMs, maxBytes: packLimit(config) };
      // The tests need every file; without them only the files the revision reads are written.
      const runsTests = config.test_command !== undefined && !("why" in services.commands);
      const revised = await withShallowClone(
        remote,
        headRef,
        async (checkout) => {
          // A push between reading the pull request and cloning it: a CI fix never goes on top of someone else's commit.
          if (payload.ci && checkout.head !== payload.ci.headSha) return { moved: checkout.head };
          // 3. The revision.
          run.enter("plan");
          const onProgress = (event: ProgressEvent) => {
            run.session.record(progressEntry(event));
            if (event.stage === "team" && event.developers.length > 0) run.enter("code");
            status.update((s) => (event.stage === "tasks" ? { ...s, tasks: event.tasks } : trackProgress(s, event)));
          };
          const ctx = stageContext(run, job, { checkout, now: services.now, commands: services, onProgress });
          // Unless the tests need every file, the checkout has none yet: only those the revision reads are written.
          const prepare = async (paths: string[]) => void (await checkout.writeFiles(paths));
          const result = await services.revise(ctx, { issue, changedFiles, comments, general, source: ci ? "ci" : "review" }, prepare);
          run.session.record(resultEntry(result));
          if (result.changes.length === 0) return { result, commit: null, parent: checkout.head };
          // 4. One commit on top of the head.
          run.enter("publish");
          const commit = await commitRevision({
            octokit,
            repo,
            repositoryId: nodeId,
            checkout,
            result,
            defaultBranch,
            config,
            message: revisionMessage(pull.number, payload, ci?.status, result),
          });
          run.enter("cleanup", { stoppable: false });
          return { result, commit, parent: checkout.head };
        },
        { parentDir: services.workDir, files: runsTests ? "all" : "none", objects: services.objects },
      );
      if (revised.moved !== undefined) return moved(revised.moved);

      // 5. The answers in the threads and the summary.
      run.enter("answer", { stoppable: false });
      const note = revised.commit ? undefined : noChangeNote(revised.result);
      await answerRevision(
        octokit,
        {
          pull: pullRef,
          comments,
          result: revised.result,
          commit: revised.commit,
          jobId: job.id,
          askedBy: payload.ci ? `failing CI (fix ${payload.ci.attempt} of ${payload.ci.of})` : `@${payload.reviewer}`,
          note,
        },
        run.logError,
      );
      return finish({ ...revised, branch: headRef, note });
    },
  };
}

/** The pull request to revise; refused when it was closed, or when a person deleted its branch (MAGIS does not create it again). */
async function readOpenPullRequest(octokit: Octokit, pullRef: IssueRef) {
  const repo = { owner: pullRef.owner, repo: pullRef.repo };
  const pull = await readPullRequest(octokit, pullRef);
  if (pull.state !== "open") {
    throw new StageError("read", `Pull request #${pull.number} is ${pull.state}, so it was not revised.`, "Reopen it, then comment `/magis revise`.");
  }
  if ((await readBranchHead(octokit, repo, pull.head.ref)) === null) {
    throw new StageError(
      "read",
      `The branch \`${pull.head.ref}\` of pull request #${pull.number} is gone (someone deleted it), so there is nothing to revise; MAGIS does not create it again.`,
      "Restore the branch from the pull request page and comment `/magis revise`, or close this pull request and comment `/magis retry` on the issue for a new one.",
    );
  }
  return pull;
}

/** The feedback to act on: the review's text and inline comments (a bare `/magis revise`: the latest review's again), and the guidance. */
async function readFeedback(octokit: Octokit, pullRef: IssueRef, payload: ReviseJobPayload, config: MagisConfig) {
  const repo = { owner: pullRef.owner, repo: pullRef.repo };
  const review = payload.reviewId
    ? { id: payload.reviewId, body: payload.reviewBody }
    : payload.guidance === ""
      ? await readLatestReview(octokit, pullRef, (login) => hasPermission(octokit, repo, login, config.allowed_permissions))
      : null;
  const comments = review ? await readReviewComments(octokit, pullRef, review.id) : [];
  const general = [review?.body ?? "", payload.guidance].filter((text) => text !== "");
  return { comments, general };
}

/** Commits the revision as one commit by the app on top of the branch's head; a branch that moved meanwhile refuses it. */
async function commitRevision(input: {
  octokit: Octokit;
  repo: { owner: string; repo: string };
  repositoryId: string;
  checkout: Checkout;
  result: RevisionResult;
  defaultBranch: string;
  config: ReviseJobPayload["config"];
  message: string;
}): Promise<string> {
  const { checkout, result, config } = input;
  const files = result.changes.map((c) => c.path);
  try {
    return await commitThroughApi({
      octokit: input.octokit,
      repo: input.repo,
      repositoryId: input.repositoryId,
      checkout,
      branch: checkout.branch,
      changes: result.changes,
      message: input.message,
      // Never a forced update: the commit's parent is the head just cloned, people's commits included, and the branch must still be there.
      lease: { head: checkout.head, force: false },
      guard: { prefix: config.branch_prefix, defaultBranch: input.defaultBranch, protectedPaths: config.protected_paths },
    });
  } catch (error) {
    const workflows = workflowRefusal(error, checkout.branch, files);
    if (workflows) throw new StageError("publish", workflows, WORKFLOW_NEXT_STEP, { cause: error });
    const what = `The revision of ${files.map((f) => `\`${f}\``).join(", ")} was not pushed to \`${checkout.branch}\``;
    // A moved branch is someone's push (or deletion), not a fault: said as such.
    const why =
      error instanceof BranchMovedError
        ? error.found === null
          ? "someone deleted the branch while MAGIS was revising it, and MAGIS does not create it again"
          : "someone pushed to the branch while MAGIS was revising it, and the bot never force-pushes, so their commits stay as they are"
        : (error instanceof Error ? error.message : String(error)).replace(/\.*$/, "");
    const reason = `${what}: ${why}.`;
    throw new StageError("publish", reason, REVISE_PULL_REQUEST.howTo);
  }
}

/** The revision's commit message; a CI fix is numbered in a trailer, which the next failure of CI reads. */
function revisionMessage(pull: number, payload: ReviseJobPayload, ci: CiFixStatus | undefined, result: RevisionResult): string {
  const files = `Changed by MAGIS: ${result.changes.map((c) => c.path).join(", ")}.`;
  if (!ci) return `Revise #${pull} after the review of @${payload.reviewer}\n\n${files}`;
  return `Fix CI of #${pull} (attempt ${ci.attempt} of ${ci.of})\n\nCI failed on ${ci.checks.replace(/`/g, "")}. ${files}\n\n${CI_FIX_TRAILER}: ${ci.attempt}`;
}

/** Why a revision changed nothing, as a clause for the summary and the history. */
function noChangeNote(result: RevisionResult): string {
  if (result.tasks.length === 0) {
    const reasons = result.declined.map((d) => `\`${d.path}\`: ${d.reason}`).join("; ");
    return `the Manager found no file to change for this feedback${reasons ? ` (${reasons})` : ""}`;
  }
  return "no task produced a change the QA Engineer approved";
}
