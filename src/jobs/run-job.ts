import type { z } from "zod";
import type { MagisConfig } from "../config.js";
import { react, StatusComment, type ReactionTarget } from "../github/status/status-comment.js";
import type { IssueRef, Octokit } from "../github/types.js";
import { redactSecrets } from "../lib/redact-secrets.js";
import { startTimeLimit, TimeLimitError, type LimitClock } from "../lib/time-limit.js";
import type { ModelPrices } from "../llm/prices.js";
import type { Llm, TraceRecord } from "../llm/types.js";
import { discardingRecorder, SessionRecorder } from "../session/record-session.js";
import { modelCallEntry } from "../session/record/model-call-entry.js";
import type { SessionOutcome } from "../session/types.js";
import type { JobRecord } from "../store/jobs.js";
import type { SessionStore } from "../store/sessions.js";
import { explainFailure, type Rerun } from "./explain-failure.js";
import type { JobOutcome } from "./job-outcome.js";
import { stoppedOutcome } from "./job-outcome.js";
import type { JobRunner, QueueLog } from "./job-queue.js";
import { PhaseClock } from "./phase-clock.js";
import type { FailureNote } from "./track-status.js";

/** What every job uses, whatever its kind; GitHub, the model and the clock come in from outside. */
export interface JobServices {
  auth: (installationId: number) => Promise<Octokit>;
  createLlm: (config: MagisConfig, onTrace: (record: TraceRecord) => void, signal: AbortSignal) => Llm;
  log: QueueLog;
  now: () => number;
  /** What the job's time limit counts on (default the machine's clock); a test moves one by hand. */
  limitClock?: LimitClock;
  /** Told each job's phase timings (for logs and the overhead benchmark). */
  onTimings?: (job: JobRecord, timings: ReturnType<PhaseClock["finish"]>) => void;
  /** Told each model call's trace record. */
  onTrace?: (job: JobRecord, record: TraceRecord) => void;
  /** Folders of this machine (where checkouts go) that a public failure note names `<work folder>` instead. */
  hostPaths?: readonly string[];
  /** Where a job's session page is ({MAGIS_PUBLIC_URL}/jobs/<id>); absent when the page is off, and nothing links it. */
  sessionUrl?: (jobId: number) => string;
  /** Where each job's session is recorded as it runs (absent: none is kept). */
  sessions?: SessionStore;
  /** The operator's price table: the session's model calls and result carry dollars where it knows the model. */
  prices?: ModelPrices;
  /** Values removed from every session entry besides the installation token (the model's key, the app's own secrets). */
  secrets?: readonly (string | undefined)[];
  /** GitHub's web address (https://github.com, or a GitHub Enterprise Server's): the session links the job's issue. */
  webUrl?: string;
}

/**
 * One kind of job: the payload its trigger stored (a versioned schema, checked when the job is read back), how its
 * status comment starts and renders, what gets its reactions, how it is run again, and its steps.
 */
export interface JobKind<P extends { config: MagisConfig }, S extends { failure?: FailureNote }> {
  /** The `kind` of its records: `resolve-issue`, `revise-pull-request`. */
  name: string;
  payload: z.ZodType<P>;
  rerun: Rerun;
  /** The stage a job starts in. */
  firstStage: string;
  /** The status comment's first state. */
  start: (job: JobRecord, payload: P) => S;
  render: (state: S) => string;
  /** What gets the 👀, 🚀 and 😕 reactions at the start (the trigger comment, the issue), if anything yet. */
  target: (payload: P) => ReactionTarget | null;
  /** The title of what the job is about, when the payload carries it (the session's heading). */
  title?: (payload: P) => string;
  /** The job's work; says what the record keeps and whether it ends in 🚀. */
  steps: (run: JobRun<S>, job: JobRecord, payload: P) => Promise<StepsResult>;
}

/** What a job's steps end with: the record's detail (a pull request's URL), and whether the run gets its 🚀. */
export interface StepsResult {
  detail: string;
  succeeded: boolean;
  /** The pull request opened or updated, for the session's outcome. */
  pullRequest?: string;
  /** The job asked the issue's author a question instead of acting: it ends `asked`, neither succeeded nor failed. */
  asked?: boolean;
}

/** One running job as its steps see it. */
export interface JobRun<S> {
  octokit: Octokit;
  /** The installation token (for git), also removed from everything the job writes. */
  token: string;
  /** The repository's config as the trigger read it. */
  config: MagisConfig;
  status: StatusComment<S>;
  /** Aborted when the job is cancelled or runs out of time; the model client honours it. */
  signal: AbortSignal;
  /** The job's model: traced, timed per phase, and stopped by `signal`. */
  llm: Llm;
  /**
   * The job's session (see SessionRecorder): the job, its stages, model calls and outcome are recorded by runJob; the
   * steps add what only they see (progress, commands, the result, waiting and steering).
   */
  session: SessionRecorder;
  /** Stops the job's time limit while it waits on a person (plan approval); the returned call starts it again. */
  pauseTimeLimit(): () => void;
  /**
   * Moves the job into a stage (its record and phase timings; the first phase is "setup"); throws once the job was
   * stopped, unless `stoppable` is false: the stages after publishing, since what was pushed cannot be taken back.
   */
  enter(stage: string, options?: { stoppable?: boolean }): void;
  /** Sets what gets the reactions, once the job knows (a revision's first inline comment). */
  setTarget(target: ReactionTarget): Promise<void>;
  /** Reports a failed GitHub update (status edit, reaction) to the log, without secrets. */
  logError(error: unknown): void;
}

/** Thrown by a job's steps when they find the job is no longer wanted (the issue was closed meanwhile): it ends as cancelled. */
export class JobCancelledError extends Error {}

/** The queue's runner for one kind of job: its payload read back through the kind's schema, then run (see runJob). */
export function jobRunner<P extends { config: MagisConfig }, S extends { failure?: FailureNote }>(services: JobServices, kind: JobKind<P, S>): JobRunner {
  return async (job, progress) => {
    const parsed = kind.payload.safeParse(job.payload);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(payload)"}: ${issue.message}`).join("; ");
      return {
        status: "failed",
        detail: `job ${job.id} carries a ${kind.name} payload this version of MAGIS cannot read (${problems}); ${kind.rerun.howTo}`,
        stage: kind.firstStage,
      };
    }
    return runJob(services, kind, { job, progress, payload: parsed.data });
  };
}

/** One job of a kind to run: its record, its queue's hooks, and its payload read back. */
interface JobToRun<P> {
  job: JobRecord;
  /** Its queue's hooks: where its stage is recorded, and the signal that stops it. */
  progress: { stage: (name: string) => void; signal: AbortSignal };
  /** The payload, checked against the kind's schema. */
  payload: P;
}

/**
 * Runs one job with its status comment, the skeleton every job kind shares: authenticate; post the status comment and
 * react 👀; run the steps within the job's time limit, stopping where they are when the job is cancelled; then show
 * the outcome (the steps' own 🚀, or the failure, or the cancellation, with its stage and next step) and return it for
 * the queue to record. The outcome reaches the issue even when the first status post failed.
 */
async function runJob<P extends { config: MagisConfig }, S extends { failure?: FailureNote }>(
  services: JobServices,
  kind: JobKind<P, S>,
  { job, progress, payload }: JobToRun<P>,
): Promise<JobOutcome> {
  const where: IssueRef = { owner: job.owner, repo: job.repo, number: job.number };
  const config = payload.config;
  const clock = new PhaseClock("setup");
  const octokit = await services.auth(job.installationId);
  const { token } = (await octokit.auth({ type: "installation", installationId: job.installationId })) as { token: string };
  const secrets = [token];
  const session = openSession(services, job, secrets);
  session.record({
    kind: "job",
    data: {
      id: job.id,
      jobKind: kind.name,
      repository: `${job.owner}/${job.repo}`,
      number: job.number,
      title: kind.title?.(payload) ?? "",
      // GitHub sends /issues/N of a pull request on to its page: one address for both kinds.
      ...(services.webUrl && { url: `${services.webUrl}/${job.owner}/${job.repo}/issues/${job.number}` }),
    },
  });
  session.record({ kind: "stage", data: { name: "setup", state: "started" } });
  const logError = (error: unknown) => services.log.warn({ job: job.id, error: redactSecrets(String(error), secrets) }, "a GitHub update of a job failed");
  const limit = startTimeLimit(config.job_timeout_minutes, progress.signal, services.limitClock);
  const signal = limit.signal;
  let target = kind.target(payload);
  let stage = kind.firstStage;
  let phase = "setup";
  let model: Llm | undefined;
  const run: JobRun<S> = {
    octokit,
    token,
    config,
    signal,
    status: await StatusComment.post(octokit, where, { state: kind.start(job, payload), render: kind.render, onError: logError }),
    // Made when a step first asks, inside the steps: a model that cannot be set up (no key) fails the job visibly.
    get llm() {
      const onTrace = (record: TraceRecord) => {
        session.record(modelCallEntry(record));
        services.onTrace?.(job, record);
      };
      return (model ??= clock.timed(services.createLlm(config, onTrace, signal)));
    },
    enter(name, options = {}) {
      if (options.stoppable !== false) signal.throwIfAborted();
      if (name !== phase) {
        session.record({ kind: "stage", data: { name: phase, state: "ended" } });
        clock.mark((phase = name));
        session.record({ kind: "stage", data: { name, state: "started" } });
      }
      if (name === stage) return;
      stage = name;
      progress.stage(name);
    },
    async setTarget(next) {
      target = next;
      await react(octokit, where, { target: next, content: "eyes", onError: logError });
    },
    logError,
    session,
    pauseTimeLimit: () => limit.pause(),
  };
  const finish = async (reaction: "rocket" | "confused" | null) => {
    await run.status.flush();
    if (!run.status.posted)
      services.log.warn({ job: job.id }, "the job's status comment could not be posted on GitHub; its reactions and record still show the outcome");
    if (target && reaction) await react(octokit, where, { target, content: reaction, onError: logError });
    services.onTimings?.(job, clock.finish());
    session.record({ kind: "stage", data: { name: phase, state: "ended" } });
  };

  try {
    progress.stage(stage);
    if (target) await react(octokit, where, { target, content: "eyes", onError: logError });
    const result = await kind.steps(run, job, payload);
    limit.clear();
    await finish(result.succeeded ? "rocket" : null);
    return await ended(session, { status: result.asked ? "asked" : "succeeded", detail: result.detail }, result.pullRequest);
  } catch (error) {
    limit.clear();
    const stopped = signal.aborted ? signal.reason : error instanceof JobCancelledError ? error : null;
    const failure = stopped
      ? stopNote(stopped, stage, kind.rerun)
      : explainFailure(error, stage, { secrets, hostPaths: services.hostPaths, rerun: kind.rerun });
    run.status.update((s) => ({ ...s, failure }));
    await finish(failure.cancelled ? null : "confused");
    // Stopped by its queue: the record says why the queue stopped it (a closed issue, a worker shutting down).
    if (progress.signal.aborted) return await ended(session, stoppedOutcome(progress.signal.reason, failure.stage));
    return await ended(session, { status: failure.cancelled ? "cancelled" : "failed", detail: `${failure.reason} ${failure.nextStep}`, stage: failure.stage });
  }
}

/** The job's session: recorded in the store where the services keep sessions, redacted of the job's secrets. */
function openSession(services: JobServices, job: JobRecord, secrets: readonly string[]): SessionRecorder {
  const { sessions } = services;
  if (!sessions) return discardingRecorder(services.now);
  return new SessionRecorder({
    sink: (rows) => sessions.append(job.id, rows),
    secrets: [...secrets, ...(services.secrets ?? [])],
    now: services.now,
    prices: services.prices,
    onSinkError: (error) => services.log.warn({ job: job.id, error: String(error) }, "the job's session could not be recorded; the job goes on without it"),
  });
}

/** Records how the job ended as its session's last entry, and hands the outcome on once the session is written. */
async function ended(session: SessionRecorder, outcome: JobOutcome, pullRequest?: string): Promise<JobOutcome> {
  const data: SessionOutcome = {
    status: outcome.status,
    detail: outcome.detail,
    ...("stage" in outcome && outcome.stage !== undefined && { stage: outcome.stage }),
  };
  session.record({ kind: "outcome", data: { ...data, ...(pullRequest !== undefined && { pullRequest }) } });
  await session.close();
  return outcome;
}

// A stop is either the time limit (a failure with advice) or a cancellation (someone closed the issue or removed the label).
function stopNote(reason: unknown, stage: string, rerun: Rerun): FailureNote {
  if (reason instanceof TimeLimitError) {
    return {
      stage,
      reason: `${reason.message}; nothing was pushed by it.`,
      nextStep: `Raise \`job_timeout_minutes\` in \`.github/magis.yml\`, or narrow the issue with guidance, then comment \`${rerun.command}\`.`,
    };
  }
  const why = reason instanceof Error ? reason.message : String(reason);
  // A worker shutting down hands its run back to the queue: it starts again by itself, nobody need retry it.
  if (stoppedOutcome(reason).status === "handed-back") {
    return {
      stage,
      reason: `This run stopped because ${why}; nothing was pushed by it.`,
      nextStep: "Nothing to do: it starts again by itself.",
      cancelled: true,
    };
  }
  return { stage, reason: `The run was cancelled because ${why}; nothing was pushed by it.`, nextStep: rerun.howTo, cancelled: true };
}
