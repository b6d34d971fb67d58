import { configWarnings } from "../../../config.js";
import { withShallowClone } from "../../../git/clone-repository.js";
import { historyWindow, type CommitRecord } from "../../../git/commit-history.js";
import type { FetchedHistory } from "../../../git/fetch-recent-history.js";
import type { ObjectCache } from "../../../git/object-cache.js";
import { openRepository, packLimit } from "../../../github/client/open-repository.js";
import { publishPullRequest } from "../../../github/publish/publish-pull-request.js";
import { readIssueState } from "../../../github/read/read-issue-state.js";
import { readIssueText } from "../../../github/read/read-issue-text.js";
import type { BotIdentity, IssueRef, Octokit } from "../../../github/types.js";
import { openJobIndex, renderReport, selectNeedsHuman, type resolveIssue, type TermMemory } from "../../../pipeline/index.js";
import { StageError } from "../../../pipeline/errors.js";
import type { PlanProposal, ProgressEvent } from "../../../pipeline/types.js";
import { progressEntry } from "../../../session/record/progress-entry.js";
import { stageAfter } from "../../../session/record/stage-after.js";
import { stageContext, type CommandServices } from "../../stage-context.js";
import { RETRY_ISSUE } from "../../explain-failure.js";
import { JobCancelledError, type JobKind, type JobRun, type JobServices, type StepsResult } from "../../run-job.js";
import { ASKED_PREFIX } from "../../job-outcome.js";
import { postIssueComment } from "../../../github/publish/post-issue-comment.js";
import { neutralize } from "../../../lib/markdown.js";
import { waitForApproval } from "./wait-for-approval.js";
import { startStatus, trackProgress } from "../../track-status.js";
import { resolvePayload, type ResolveJobPayload } from "./payload.js";
import { renderStatus, type ResolveStatus } from "./render-status.js";

/** What a resolve job uses besides the parts every job uses. */
export interface ResolveJobServices extends JobServices, CommandServices {
  /** The app's bot identity (asked of GitHub once). */
  bot: () => Promise<BotIdentity>;
  resolve: typeof resolveIssue;
  memory: Parameters<typeof resolveIssue>[2];
  /** The memory's index cache with this process's memo in front of it (see TermMemory); absent: jobs remember no terms. */
  terms?: TermMemory;
  /** Overrides the clone URL's origin (e.g. a GitHub Enterprise or test git server); default: the API's clone_url. */
  gitBaseUrl?: string;
  /** Where checkouts are made (default: the system's temp directory). */
  workDir?: string;
  /** Where clones keep their objects for the next clone of the same repository (MAGIS_OBJECT_CACHE_MB; absent: none kept). */
  objects?: ObjectCache;
  /** How long the git server may stay silent during a clone (MAGIS_GIT_TIMEOUT_MS; default 60 s). */
  gitIdleTimeoutMs?: number;
  /** How often a job waiting for its plan's approval reads its session (default APPROVAL_POLL_MS). */
  approvalPollMs?: number;
  /** Why jobs here cannot wait for `/magis go` (the Action); absent: a job with `plan_approval` waits. */
  noPlanApproval?: string;
}

/**
 * The `resolve-issue` job: within its status comment (see runJob),
 *  1. check the issue still wants it and the repository's size; take the issue as it was at the trigger, with its
 *     comments until then as hints;
 *  2. shallow-clone the default branch, with its recent commits alongside (history_months);
 *  3. resolve the issue (MAGIS), editing the status as stages finish; with plan_approval, wait for `/magis go` before
 *     any code is written;
 *  4. check the issue still wants it (open, label still on), then publish the pull request; or, when the Manager could
 *     not act on the issue as written, ask its author the Manager's question and push nothing;
 *  5. link it in the status (status edits are held while it publishes, and shown with the link) and react 🚀.
 */
export function resolveKind(services: ResolveJobServices): JobKind<ResolveJobPayload, ResolveStatus> {
  return {
    name: "resolve-issue",
    payload: resolvePayload,
    rerun: RETRY_ISSUE,
    firstStage: "clone",
    start: (job, payload) => ({
      ...startStatus(job.id, payload.trigger),
      issueAsOf: payload.triggeredAt,
      warnings: configWarnings(payload.config),
      sessionUrl: services.sessionUrl?.(job.id),
    }),
    render: renderStatus,
    target: (payload) => (payload.commentId ? { kind: "comment", id: payload.commentId } : { kind: "issue" }),
    title: (payload) => payload.issue?.title ?? "",
    steps: async (run, job, payload) => {
      const { config } = run;
      const issueRef: IssueRef = { owner: job.owner, repo: job.repo, number: job.number };
      const repo = { owner: job.owner, repo: job.repo };
      // A plan nobody can approve here is refused before anything is spent on it.
      if (config.plan_approval && services.noPlanApproval) {
        throw new StageError(
          "config",
          `\`plan_approval\` is set, but ${services.noPlanApproval}, so the plan could never be approved; nothing was done.`,
          "Set `plan_approval: false` in .github/magis.yml for this door (the App's jobs wait for `/magis go`), then run again.",
        );
      }
      // 1. The repository and the issue as it was at the trigger.
      const { octokit, token } = run;
      // A run queued before a restart, or a redelivered trigger, may be for an issue closed meanwhile: checked first too.
      await ensureStillWanted(octokit, issueRef, payload.label);
      const { url, defaultBranch, nodeId } = await openRepository(octokit, repo, {
        config,
        gitBaseUrl: services.gitBaseUrl,
        rerunCommand: RETRY_ISSUE.command,
      });
      const snapshot = payload.issue && payload.triggeredAt ? { ...payload.issue, at: payload.triggeredAt } : undefined;
      const issue = await readIssueText(octokit, issueRef, {
        guidance: payload.guidance,
        hints: { authors: config.hint_authors, allowed: config.allowed_permissions },
        snapshot,
      });
      const bot = await services.bot();
      run.enter("clone");

      // 2. The checkout, and 3. the MAGIS run in it.
      const history = historyWindow(config);
      const remote = { url, token, idleTimeoutMs: services.gitIdleTimeoutMs, maxBytes: packLimit(config) };
      // The Custodian's index of this job: the clone hands it the files it writes, the pipeline reads them from it.
      const index = openJobIndex({ terms: services.terms ?? null, list: { exclude: config.exclude, maxFileBytes: config.max_file_bytes } });
      const published = await withShallowClone(
        remote,
        defaultBranch,
        async (checkout): Promise<{ pull: Awaited<ReturnType<typeof publishPullRequest>> } | { question: string }> => {
          run.enter("locate");
          const onProgress = (event: ProgressEvent) => {
            run.session.record(progressEntry(event));
            const next = stageAfter(event);
            if (next) run.enter(next);
            run.status.update((s) => trackProgress(s, event));
          };
          const ctx = {
            ...stageContext(run, job, { checkout, now: services.now, commands: services, onProgress }),
            ...(checkout.history && {
              history: () => fetchedCommits(checkout.history!, (skipped) => services.log.info({ job: job.id, skipped }, "ranking without the commit history")),
            }),
            index,
            ...(config.plan_approval && {
              approvePlan: async (proposal: PlanProposal) => {
                run.enter("approval");
                const approval = await waitForApproval(
                  { run, jobId: job.id, sessions: services.sessions, now: services.now, pollMs: services.approvalPollMs },
                  proposal,
                );
                run.enter("code");
                return approval;
              },
            }),
          };
          const result = await services.resolve(ctx, issue, services.memory);
          // From here the status changes in one edit after what the job ends with (the pull request, the question):
          // an edit now would be a write that GitHub's pacing puts a second before the commit's.
          run.status.hold();
          if ("question" in result) return { question: result.question };

          // 4. Publish, unless the issue was closed or its label removed meanwhile (a missed webhook included).
          run.enter("publish");
          await ensureStillWanted(octokit, issueRef, payload.label);
          const body = renderReport(result, {
            title: issue.title,
            issueNumber: job.number,
            sessionUrl: services.sessionUrl?.(job.id),
            prices: services.prices,
          });
          const pull = await publishPullRequest({
            octokit,
            repo,
            issue: { number: job.number, title: issue.title },
            checkout,
            repositoryId: nodeId,
            defaultBranch,
            config,
            bot,
            changes: result.changes,
            body,
            signal: run.signal,
            onError: run.logError,
            closesIssue: selectNeedsHuman(result.setAside).length === 0,
          });
          // Shown before the checkout is removed, which can take seconds.
          showPullRequest(run, pull);
          run.enter("cleanup", { stoppable: false });
          return { pull };
        },
        { parentDir: services.workDir, sink: index, ...(history && { history }), objects: services.objects },
      );

      if ("question" in published) return askAuthor(run, issueRef, { question: published.question, author: payload.issue?.author ?? "" });
      // 5. The pull request in the status.
      const { pull } = published;
      return { detail: pull.url, succeeded: true, pullRequest: pull.url };
    },
  };
}

/**
 * Posts the Manager's question to the issue, addressed to its author, and ends the run as `asked`: nothing is pushed,
 * and the answer (a comment) is among the hints of the next run (`/magis retry`).
 */
async function askAuthor(run: JobRun<ResolveStatus>, issue: IssueRef, asked: { question: string; author: string }): Promise<StepsResult> {
  const { question, author } = asked;
  const whom = author ? `@${author}` : "The issue's author";
  const quoted = neutralize(question.trim())
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
  await postIssueComment(
    run.octokit,
    issue,
    `${whom}, before MAGIS works on this issue it needs to know:\n\n${quoted}\n\nPlease answer in a comment here; then \`/magis retry\` runs again with your answer as a hint.`,
  );
  run.session.record({ kind: "question", data: { question, author } });
  run.status.update((s) => ({ ...s, question: { text: question, author: author || "the issue's author" } }));
  return { detail: `${ASKED_PREFIX}${author ? `@${author}` : "the issue's author"}: ${question.trim().slice(0, 500)}`, succeeded: true, asked: true };
}

/** Links the pull request in the status, in one edit with whatever publishing held back. */
function showPullRequest(run: JobRun<ResolveStatus>, pull: { url: string; number: number; updated: boolean }): void {
  run.status.update((s) => ({ ...s, pullRequest: { url: pull.url, number: pull.number, updated: pull.updated } }));
  run.status.release();
}

/** The fetched commits for the Custodian; a history the server could not send is logged with why, and ranks without it. */
async function fetchedCommits(history: Promise<FetchedHistory>, onSkipped: (reason: string) => void): Promise<CommitRecord[]> {
  const { commits, skipped } = await history;
  if (skipped) onSkipped(skipped);
  return commits;
}

/** Ends a run whose issue is closed, or whose label was removed: checked when it starts and again before it publishes. */
async function ensureStillWanted(octokit: Octokit, issue: IssueRef, label: string | undefined): Promise<void> {
  const { state, labels } = await readIssueState(octokit, issue);
  if (state !== "open") throw new JobCancelledError("the issue is closed");
  if (label !== undefined && !labels.includes(label)) throw new JobCancelledError(`the label \`${label}\` is no longer on the issue`);
}
