import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { withinTime } from "../lib/within-time.js";
import type { ServeRole } from "../jobs/job-queue.js";

/** How a job ended, as counted: `handed_back` after SIGTERM's grace period, `lost` when its worker went silent. */
export type JobOutcome = "succeeded" | "asked" | "failed" | "cancelled" | "handed_back" | "lost";

/** How a webhook delivery was answered: recorded (2xx), a redelivery of a recorded one, refused (4xx), failed (5xx or no answer). */
export type WebhookOutcome = "recorded" | "redelivery" | "refused" | "failed";

/** Jobs of one kind in one status, across every process sharing the store. */
export interface QueueDepth {
  kind: string;
  status: "queued" | "running";
  count: number;
}

/** The model calls of one agent and the tokens they used. */
export interface ModelUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/** What the metrics describe and where the queue's depth comes from. */
export interface MetricsOptions {
  /** Set as the `role` label of every metric. */
  role: ServeRole;
  /** Counts the store's queued and running jobs at each scrape; without it there is no `magis_jobs` nor `magis_store_up`. */
  queueDepth?: () => Promise<QueueDepth[]>;
  /** How long `queueDepth` may take before the scrape goes on without it (default 5 s: Prometheus gives a scrape 10 s). */
  queueDepthTimeoutMs?: number;
  /** The kept environments' counts, read at each scrape; without it there is no `magis_environment_*` metric. */
  environments?: () => EnvironmentCounts;
}

/** What a process's kept environments count: found and not, built, evicted, and what is kept now (see EnvironmentShelf.stats). */
export interface EnvironmentCounts {
  hits: number;
  misses: number;
  builds: number;
  buildSeconds: number;
  bytes: number;
  kept: number;
  evicted: number;
}

/** The process's Prometheus metrics: what it records, and its exposition text. */
export interface MagisMetrics {
  /** A job began running in this process. */
  jobStarted(kind: string): void;
  /** A job ended after `seconds`; a `lost` job ran in another process, so it does not count against this one's running jobs. */
  jobFinished(kind: string, outcome: JobOutcome, seconds: number): void;
  /** Model calls made by `agent` and their tokens. */
  modelUsage(agent: string, usage: ModelUsage): void;
  /** A webhook delivery was answered after `seconds`. */
  webhookAnswered(outcome: WebhookOutcome, seconds: number): void;
  /**
   * What became of a delivery on its way to a decision: spooled (the store was down), replayed from the spool,
   * refused with the spool full (an alert), a file in the spool set aside as holding no delivery (an alert), a decision
   * GitHub failed tried again, or given up on.
   */
  triggerEvent(event: "spooled" | "replayed" | "spool_full" | "set_aside" | "retried" | "gave_up"): void;
  /** The Content-Type of `text()`. */
  readonly contentType: string;
  /** Samples the queue (when there is a `queueDepth`) and renders every metric in Prometheus' text format. */
  text(): Promise<string>;
}

// A job runs from seconds (declined, no change needed) to about an hour (a large plan with several QA rounds).
const JOB_SECONDS_BUCKETS = [5, 10, 30, 60, 120, 300, 600, 900, 1200, 1800, 2700, 3600];
// GitHub gives up on a webhook after 10 s; the web role should answer in milliseconds.
const WEBHOOK_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const DEFAULT_QUEUE_DEPTH_TIMEOUT_MS = 5_000;

/**
 * Builds the metrics of one `magis serve` process in a registry of its own (never prom-client's global one, so that
 * several can live in one process), with Node's process metrics prefixed `magis_`.
 */
export function createMetrics(options: MetricsOptions): MagisMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ role: options.role });
  collectDefaultMetrics({ register: registry, prefix: "magis_" });
  const registers = [registry];
  const runningHere = new Gauge({ name: "magis_jobs_running_here", help: "Jobs running in this process, by kind.", labelNames: ["kind"], registers });
  const durations = new Histogram({
    name: "magis_job_duration_seconds",
    help: "Time from a job's start to its end in this process (to its detection for lost jobs), by kind and outcome.",
    labelNames: ["kind", "outcome"],
    buckets: JOB_SECONDS_BUCKETS,
    registers,
  });
  const finished = new Counter({
    name: "magis_jobs_finished_total",
    help: "Jobs ended, by kind and outcome (succeeded, asked a question, failed, cancelled, handed_back after SIGTERM's grace, lost with a silent worker).",
    labelNames: ["kind", "outcome"],
    registers,
  });
  const tokens = new Counter({
    name: "magis_model_tokens_total",
    help: "Model tokens used, by agent and direction (prompt or completion).",
    labelNames: ["agent", "direction"],
    registers,
  });
  const calls = new Counter({ name: "magis_model_calls_total", help: "Model calls made, by agent.", labelNames: ["agent"], registers });
  const webhooks = new Counter({
    name: "magis_webhooks_total",
    help: "Webhook deliveries answered, by outcome (recorded, redelivery, refused with 4xx, failed with 5xx or no answer).",
    labelNames: ["outcome"],
    registers,
  });
  const triggerEvents = new Counter({
    name: "magis_trigger_events_total",
    help: "Deliveries spooled while the store was down, replayed into it, refused with the spool full, files in the spool set aside as holding no delivery, decisions GitHub failed tried again, and given up on.",
    labelNames: ["event"],
    registers,
  });
  const answers = new Histogram({
    name: "magis_webhook_answer_seconds",
    help: "Time from a webhook delivery's arrival to its answer; GitHub gives up after 10 s.",
    buckets: WEBHOOK_SECONDS_BUCKETS,
    registers,
  });
  const sampleQueue = options.queueDepth && queueSampler(options.queueDepth, options.queueDepthTimeoutMs ?? DEFAULT_QUEUE_DEPTH_TIMEOUT_MS, registers);
  const sampleEnvironments = options.environments && environmentSampler(options.environments, registers);
  return {
    jobStarted: (kind) => runningHere.inc({ kind }),
    jobFinished: (kind, outcome, seconds) => {
      if (outcome !== "lost") runningHere.dec({ kind });
      durations.observe({ kind, outcome }, seconds);
      finished.inc({ kind, outcome });
    },
    modelUsage: (agent, usage) => {
      calls.inc({ agent }, usage.calls);
      tokens.inc({ agent, direction: "prompt" }, usage.promptTokens);
      tokens.inc({ agent, direction: "completion" }, usage.completionTokens);
    },
    triggerEvent: (event) => triggerEvents.inc({ event }),
    webhookAnswered: (outcome, seconds) => {
      webhooks.inc({ outcome });
      answers.observe(seconds);
    },
    contentType: registry.contentType,
    text: async () => {
      await sampleQueue?.();
      sampleEnvironments?.();
      return registry.metrics();
    },
  };
}

/**
 * The `magis_jobs` and `magis_store_up` gauges and the function that refreshes them before a scrape. A store that
 * fails or does not answer in time leaves `magis_jobs` empty (no stale counts) and `magis_store_up` at 0.
 */
function queueSampler(queueDepth: () => Promise<QueueDepth[]>, timeoutMs: number, registers: Registry[]): () => Promise<void> {
  const jobs = new Gauge({
    name: "magis_jobs",
    help: "Jobs in the shared store by kind and status (queued, running), counted at each scrape; every process reports the same totals.",
    labelNames: ["kind", "status"],
    registers,
  });
  const storeUp = new Gauge({
    name: "magis_store_up",
    help: "1 when the store answered the queue count at this scrape, 0 when it failed or took too long (GET /readyz says why).",
    registers,
  });
  return async () => {
    const late = () => new Error(`the store did not count the queue within ${timeoutMs} ms`);
    const rows = await withinTime(Promise.resolve().then(queueDepth), timeoutMs, late).catch(() => undefined);
    jobs.reset();
    storeUp.set(rows ? 1 : 0);
    for (const row of rows ?? []) jobs.set({ kind: row.kind, status: row.status }, row.count);
  };
}

/**
 * The `magis_environment_*` metrics and the function that sets them from the shelf's counts before a scrape: the
 * counters are the process's since it started, the gauges what its folder holds now.
 */
function environmentSampler(counts: () => EnvironmentCounts, registers: Registry[]): () => void {
  const lookups = new Counter({
    name: "magis_environment_lookups_total",
    help: "Kept environments looked for by jobs of this process, by result (hit: found under its key, miss: built afresh).",
    labelNames: ["result"],
    registers,
  });
  const builds = new Counter({ name: "magis_environment_builds_total", help: "Environments this process built (setup run), kept or not.", registers });
  const buildSeconds = new Counter({ name: "magis_environment_build_seconds_total", help: "Seconds the setups of those builds took.", registers });
  const evictions = new Counter({
    name: "magis_environment_evictions_total",
    help: "Kept environments this process removed, least recently used first, to stay within MAGIS_ENV_CACHE_MB.",
    registers,
  });
  const bytes = new Gauge({ name: "magis_environment_bytes", help: "Bytes of the environments kept in MAGIS_ENV_DIR now.", registers });
  const kept = new Gauge({ name: "magis_environments_kept", help: "Environments kept in MAGIS_ENV_DIR now.", registers });
  // A counter cannot be set: it is reset and raised to the shelf's count.
  const setCounter = (counter: Counter, value: number, labels?: { result: string }) => {
    counter.reset();
    if (labels) counter.inc(labels, value);
    else counter.inc(value);
  };
  return () => {
    const now = counts();
    setCounter(lookups, now.hits, { result: "hit" });
    lookups.inc({ result: "miss" }, now.misses);
    setCounter(builds, now.builds);
    setCounter(buildSeconds, now.buildSeconds);
    setCounter(evictions, now.evicted);
    bytes.set(now.bytes);
    kept.set(now.kept);
  };
}
