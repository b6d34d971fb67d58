import { parseConfig, type MagisConfig } from "../config.js";
import type { JobRunner } from "../jobs/job-queue.js";
import { PhaseClock, type PhaseTiming } from "../jobs/phase-clock.js";
import type { Llm, TraceRecord } from "../llm/types.js";
import { renderReport } from "../pipeline/report/render-report.js";
import { selectNeedsHuman } from "../pipeline/report/select-needs-human.js";
import type { resolveIssue } from "../pipeline/resolve-issue.js";
import type { ProgressEvent } from "../pipeline/types.js";
import type { JobRecord } from "../store/jobs.js";
import { withShallowClone } from "../workspace/clone-repository.js";
import { explainFailure, RETRY_ISSUE } from "./explain-failure.js";
import { openRepository } from "./open-repository.js";
import { publishPullRequest } from "./publish-pull-request.js";
import { readIssueText } from "./read-issue-text.js";
import { renderStatus } from "./render-status.js";
import { redactSecrets } from "../redact-secrets.js";
import { react, StatusComment, type ReactionTarget } from "./status-comment.js";
import { startStatus, trackProgress } from "./track-status.js";
import type { BotIdentity, IssueRef, Octokit } from "./types.js";

/** The data a `resolve-issue` job carries from its trigger. */
export interface ResolveJobPayload {
  /** The validated config read when the trigger arrived. */
  config: MagisConfig;
  /** Who started it and how, as the status comment says it. */
  trigger: string;
  /** `/magis retry` guidance (already cleaned), or "". */
  guidance: string;
  /** The comment that triggered the run (gets the reactions), or absent for a label. */
  commentId?: number;
}

/** What a resolve job uses; GitHub, the model and the store come in from outside. */
export interface ResolveJobServices {
  auth: (installationId: number) => Promise<Octokit>;
  /** The app's bot identity (asked once, with the job's installation client). */
  bot: (installation: Octokit) => Promise<BotIdentity>;
  createLlm: (config: MagisConfig, onTrace: (record: TraceRecord) => void) => Llm;
  resolve: typeof resolveIssue;
  memory: Parameters<typeof resolveIssue>[2];
  /** Overrides the clone URL's origin (e.g. a GitHub Enterprise or test git server); default: the API's clone_url. */
  gitBaseUrl?: string;
  /** Where checkouts are made (default: the system's temp directory). */
  workDir?: string;
  log: { info: (obj: object, msg: string) => void; warn: (obj: object, msg: string) => void };
  now: () => number;
  /** Told each job's phase timings (for logs and the overhead benchmark). */
  onTimings?: (job: JobRecord, timings: PhaseTiming[]) => void;
  /** Told each model call's trace record. */
  onTrace?: (job: JobRecord, record: TraceRecord) => void;
}

/**
 * Runs one `resolve-issue` job:
 *  1. authenticate as the installation, post the status comment, react 👀;
 *  2. check the repository's size, read the issue and its comments (cleaned) as hints;
 *  3. shallow-clone the default branch; 4. resolve the issue (MAGIS), editing the status as stages finish;
 *  5. publish the pull request; 6. link it in the status and react 🚀 — or on failure say why and react 😕.
 */
export function resolveJobRunner(services: ResolveJobServices): JobRunner {
  return async (job, progress) => {
    const payload = job.payload as unknown as ResolveJobPayload;
    const config = parseConfig(payload.config);
    const issueRef: IssueRef = { owner: job.owner, repo: job.repo, number: job.number };
    const repo = { owner: job.owner, repo: job.repo };
    const target: ReactionTarget = payload.commentId ? { kind: "comment", id: payload.commentId } : { kind: "issue" };
    const clock = new PhaseClock("setup");
    const octokit = await services.auth(job.installationId);
    const { token } = (await octokit.auth({ type: "installation", installationId: job.installationId })) as { token: string };
    const secrets = [token];
    const logError = (error: unknown) =>
      services.log.warn({ job: job.id, error: redactSecrets(String(error), secrets) }, "a status update failed");
    let stage = "clone";
    const enter = (name: string) => {
      stage = name;
      progress.stage(name);
    };

    const status = await StatusComment.post(octokit, issueRef, startStatus(job.id, payload.trigger), renderStatus, logError);
    await react(octokit, issueRef, target, "eyes", logError);
    try {
      enter("clone");
      const { url, defaultBranch } = await openRepository(octokit, repo, config, services.gitBaseUrl, RETRY_ISSUE);
      const issue = await readIssueText(octokit, issueRef, payload.guidance, { authors: config.hint_authors, allowed: config.allowed_permissions });
      const bot = await services.bot(octokit);
      clock.mark("clone");

      const published = await withShallowClone({ url, token }, defaultBranch, async (checkout) => {
        clock.mark("locate");
        enter("locate");
        const onProgress = (event: ProgressEvent) => {
          const next = phaseAfter(event);
          if (next && next !== stage) {
            clock.mark(next);
            enter(next);
          }
          status.update((s) => trackProgress(s, event));
        };
        const model = services.createLlm(config, (record) => services.onTrace?.(job, record));
        const llm = clock.timed(model);
        const ctx = { root: checkout.dir, repoId: `${job.owner}/${job.repo}`.toLowerCase(), config, llm, now: services.now, onProgress };
        const result = await services.resolve(ctx, issue, services.memory);
        clock.mark("publish");
        enter("publish");
        const body = renderReport(result, { title: issue.title, issueNumber: job.number });
        const pull = await publishPullRequest({
          octokit, repo, issue: { number: job.number, title: issue.title }, checkout, remote: { url, token },
          defaultBranch, config, bot, changes: result.changes, body, closesIssue: selectNeedsHuman(result.setAside).length === 0,
        });
        clock.mark("cleanup");
        return pull;
      }, { parentDir: services.workDir });
      clock.mark("finish");
      status.update((s) => ({ ...s, pullRequest: { url: published.url, number: published.number, updated: published.updated } }));
      await status.flush();
      await react(octokit, issueRef, target, "rocket", logError);
      services.onTimings?.(job, clock.finish());
      return published.url;
    } catch (error) {
      const failure = explainFailure(error, stage, secrets);
      status.update((s) => ({ ...s, failure }));
      await status.flush();
      await react(octokit, issueRef, target, "confused", logError);
      services.onTimings?.(job, clock.finish());
      throw Object.assign(new Error(`${failure.reason} ${failure.nextStep}`), { stage: failure.stage });
    }
  };
}

/** The job stage that begins after a pipeline event, if one does. */
function phaseAfter(event: ProgressEvent): string | null {
  if (event.stage === "located") return "plan";
  if (event.stage === "team") return "kickoff";
  if (event.stage === "plan") return "code";
  return null;
}
