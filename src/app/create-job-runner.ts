import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ObjectCache } from "../git/object-cache.js";
import { dispatchByKind } from "../jobs/dispatch-by-kind.js";
import type { JobRunner } from "../jobs/job-queue.js";
import { resolveKind } from "../jobs/kinds/resolve/run.js";
import { reviseKind, type ReviseJobServices } from "../jobs/kinds/revise/run.js";
import { jobRunner } from "../jobs/run-job.js";
import type { CommandServices } from "../jobs/stage-context.js";
import { createLlm } from "../llm/client.js";
import { checkRepositoryModels } from "../llm/llm-settings.js";
import { resolveIssue, revisePullRequest, TermMemo, withLanguageServers } from "../pipeline/index.js";
import type { StageContext } from "../pipeline/types.js";
import type { MagisMetrics } from "../server/metrics.js";
import type { Store } from "../store/store.js";
import { forgetWhenCancelled } from "../triggers/rules/on-uninstalled.js";
import { sessionUrlFrom } from "./open-session-pages.js";
import { githubUrls } from "../github/client/github-urls.js";
import type { GitHubHost, ServiceSeams, ServiceSettings } from "./service-types.js";

/** What the job runners are made of besides the settings and the seams: the door's GitHub, the store, the sandbox's commands. */
export interface JobRunnerParts {
  host: GitHubHost;
  settings: ServiceSettings;
  seams: Pick<ServiceSeams, "createLlm" | "onTimings" | "metrics" | "limitClock">;
  store: Pick<Store, "memory" | "jobs" | "sessions">;
  commands: CommandServices["commands"];
  /** The app's own credentials (the model's key, the App's secrets), redacted from every job's session. */
  secrets: readonly (string | undefined)[];
  /** The folder of per-job model traces; "" writes none. */
  traceDir: string;
  /** Where clones keep their objects for the next clone of a repository (absent: none kept). */
  objects: ObjectCache | undefined;
}

/**
 * The queue's runner of both job kinds (resolve an issue, revise a pull request): each kind's steps with the door's
 * GitHub, the models the operator allows, the sandbox's commands and the store's memory, the job's language servers
 * around its pipeline, what a cancelled job taught the memory forgotten, and each job counted in the metrics.
 */
export function createJobRunner(parts: JobRunnerParts): JobRunner {
  const { host, settings, seams, store, traceDir } = parts;
  const { values } = settings;
  const { log } = host;
  const makeLlm = seams.createLlm ?? ((config, onTrace, signal) => createLlm({ config, settings: values.model, onTrace, signal }));
  const shared: Omit<ReviseJobServices, "revise"> = {
    auth: host.auth,
    bot: host.bot,
    // Both job kinds run the tests in the sandbox the door chose; credentials are kept from them and their output.
    commands: parts.commands,
    createLlm: (config, onTrace, signal) => {
      // On a shared server the operator pays for the models: a repository may choose only the ones it allows.
      if (settings.repositoryModels !== "any") checkRepositoryModels(config, values.model);
      return makeLlm(config, onTrace, signal);
    },
    gitBaseUrl: values.git.baseUrl,
    workDir: values.git.workDir,
    objects: parts.objects,
    gitIdleTimeoutMs: values.git.timeoutMs,
    log,
    now: Date.now,
    ...(seams.limitClock && { limitClock: seams.limitClock }),
    // Checkouts go here; a failure note names the folder, never its path.
    hostPaths: [values.git.workDir ?? os.tmpdir(), os.tmpdir()],
    // The status comment and the pull request link the job's session page when the web role serves it.
    sessionUrl: sessionUrlFrom(values),
    ...(settings.noPlanApproval && { noPlanApproval: settings.noPlanApproval }),
    // Each job's session is recorded in the store beside its record, without the app's secrets: a model's answer or a
    // hint may quote them whether commands run or not.
    sessions: store.sessions,
    prices: values.model.prices,
    secrets: parts.secrets,
    webUrl: githubUrls(values.github).web,
    onTimings: (job, timings) => {
      log.info({ job: job.id, timings }, "job timings");
      seams.onTimings?.(job, timings);
    },
    onTrace: (job, record) => {
      seams.metrics?.modelUsage(record.agent, { calls: 1, promptTokens: record.usage.promptTokens, completionTokens: record.usage.completionTokens });
      if (!traceDir) return;
      fs.mkdirSync(traceDir, { recursive: true });
      fs.appendFileSync(path.join(traceDir, `job-${job.id}.jsonl`), `${JSON.stringify(record)}\n`);
    },
  };
  const servers = settings.languageServers ?? true;
  const resolve = resolveKind({
    ...shared,
    resolve: withServers(servers, resolveIssue),
    memory: store.memory,
    // One memo of the store's index cache for the process: each job finds what earlier ones tokenized or read.
    terms: { cache: store.memory.index, memo: new TermMemo() },
  });
  const revise = reviseKind({ ...shared, revise: withServers(servers, revisePullRequest), jobs: store.jobs });
  const runners = { [resolve.name]: jobRunner(shared, resolve), [revise.name]: jobRunner(shared, revise) };
  return measured(forgetWhenCancelled(dispatchByKind(runners), store, log), seams.metrics);
}

/**
 * A job's pipeline with the job's language servers around it where they run: each starts on the job's checkout when
 * first asked, and stops when the pipeline ends (see withLanguageServers).
 */
function withServers<A extends unknown[], T>(servers: boolean, pipeline: (ctx: StageContext, ...rest: A) => Promise<T>) {
  if (!servers) return pipeline;
  return (ctx: StageContext, ...rest: A) => withLanguageServers(ctx, (ctx) => pipeline(ctx, ...rest));
}

/** The runner, with each job's start, end, outcome and duration counted in `metrics`. */
function measured(run: JobRunner, metrics: MagisMetrics | undefined): JobRunner {
  if (!metrics) return run;
  return async (job, progress) => {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    metrics.jobStarted(job.kind);
    try {
      const outcome = await run(job, progress);
      metrics.jobFinished(job.kind, outcome.status === "handed-back" ? "handed_back" : outcome.status, seconds());
      return outcome;
    } catch (error) {
      metrics.jobFinished(job.kind, "failed", seconds());
      throw error;
    }
  };
}
