import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { labeledPayload } from "../../test/e2e/payloads.js";
import { parsePrometheusText, type PrometheusText } from "../../test/support/parse-prometheus-text.js";
import { runInProcessGroup } from "../../test/support/run-in-process-group.js";
import { INSTALLATION, startScaleRig, WEBHOOK_SECRET } from "../../test/support/scale-rig.js";
import { SANDBOX_CONFIG, workerEnvironments, type TestsMode } from "./sandboxed-tests.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BUCKETS_MS = [25, 50, 100];

/** What the webhook run measured. */
export interface LatencyRun {
  sent: number;
  /** Answer times the sender saw, in milliseconds, sorted. */
  answersMs: number[];
  /** Answers other than 200 (0: no answer). */
  refused: number;
  /** The distinct reasons of answers that did not come (a failed connection), each with how many. */
  unanswered: { why: string; count: number }[];
  /** Deliveries sent that are not in the `triggers` table. */
  lost: number;
  /** Deliveries recorded but not decided yet when the last answer came, and how long after it the last was decided. */
  undecidedAtEnd: number;
  decidedWithinMs: number;
  /** The web process's own count of its answer times (its histogram): the share of the deliveries answered within 25, 50 and 100 ms. */
  serverWithin: { ms: number; share: number }[];
  /** Fewest jobs running at once while the deliveries came (the workers were busy throughout when > 0). */
  fewestRunning: number;
  peakLoad: number;
  /** How late timers ran while the deliveries came (p99 and max, milliseconds), in the web process and in the sender's. */
  loopDelay: { web: { p99: number; max: number }; sender: { p99: number; max: number } };
}

/**
 * Sends `rate` signed label webhooks a second for `seconds` (each on an issue of its own, so each is recorded, decided
 * and queued as a job) to one web process while two workers run jobs. The sender is a process of its own
 * (send-webhooks.ts) that keeps to its schedule whatever the answers. In the sandbox mode the workers' jobs build or
 * reuse an environment and run their tests in bubblewrap meanwhile.
 */
export async function measureWebhookLatency(options: {
  rate: number;
  seconds: number;
  latencyMs: number;
  tests: TestsMode;
  /** Where the web process and the sender write a CPU profile each (node --cpu-prof), when given. */
  profileDir?: string;
}): Promise<LatencyRun> {
  const busy = 4;
  const sent = options.rate * options.seconds;
  const config = options.tests === "sandbox" ? { config: SANDBOX_CONFIG } : {};
  const rig = await startScaleRig({ issues: busy + sent, latencyMs: options.latencyMs, concurrency: 2, ...config });
  const environments = workerEnvironments(options.tests);
  let peakLoad = os.loadavg()[0]!;
  let fewestRunning = Number.POSITIVE_INFINITY;
  const running = async () => Number((await rig.db.query("SELECT count(*) AS n FROM jobs WHERE status = 'running'")).rows[0].n);
  try {
    const profile = options.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${options.profileDir}`] : [];
    // node --cpu-prof may not be given in NODE_OPTIONS, the only way into `magis serve`: a module loaded first takes it.
    const webEnv = options.profileDir
      ? { NODE_OPTIONS: `--import ${path.join(HERE, "cpu-profile.mjs")}`, MAGIS_BENCH_CPU_PROFILE_DIR: options.profileDir }
      : {};
    const [web] = await Promise.all([rig.serve("web", webEnv), rig.serve("worker", environments.envOf(0)), rig.serve("worker", environments.envOf(1))]);
    const scrape = async () => parsePrometheusText(await (await fetch(`${web!.url}/metrics`)).text());
    for (let n = 1; n <= busy; n++) await rig.deliver(web!, "issues", labeledPayload({ installationId: INSTALLATION, issueNumber: n }), `busy-${n}`);
    while ((await running()) < busy) await new Promise((resolve) => setTimeout(resolve, 100));

    // A scrape also resets the web process's event-loop delay figures: the next one covers the deliveries alone.
    const before = await scrape();
    const sampler = setInterval(() => {
      peakLoad = Math.max(peakLoad, os.loadavg()[0]!);
      void running().then((n) => (fewestRunning = Math.min(fewestRunning, n)));
    }, 1_000);
    const load = { url: `${web!.url}/api/github/webhooks`, rate: options.rate, seconds: options.seconds, firstIssue: busy + 1, installationId: INSTALLATION };
    const run = await runInProcessGroup(process.execPath, [...profile, "--import", "tsx", path.join(HERE, "send-webhooks.ts"), JSON.stringify(load)], {
      cwd: path.resolve(HERE, "../.."),
      env: { ...process.env, MAGIS_SCALE_WEBHOOK_SECRET: WEBHOOK_SECRET },
      // A web process that falls behind the rate (a loaded machine) answers long after the last delivery is sent: the
      // answers' times are the figure, so the sender gets time to hear them.
      timeoutMs: (options.seconds * 5 + 120) * 1000,
    }).finally(() => clearInterval(sampler));
    const lastAnswer = Date.now();
    const after = await scrape();
    if (run.code !== 0) throw new Error(`the webhook sender failed (exit ${run.code}):\n${run.out}`);
    const sender = JSON.parse(run.out.trim().split("\n").at(-1)!) as {
      answers: { status: number; ms: number; error?: string }[];
      loopDelay: { p99: number; max: number };
    };

    const counts = async () => {
      const row = (await rig.db.query("SELECT count(*) AS recorded, count(outcome) AS decided FROM triggers WHERE delivery LIKE 'load-%'")).rows[0];
      return { recorded: Number(row.recorded), decided: Number(row.decided) };
    };
    const answered = after.value("magis_webhook_answer_seconds_count") - before.value("magis_webhook_answer_seconds_count");
    const atEnd = await counts();
    let decided = atEnd.decided;
    while (decided < atEnd.recorded && Date.now() - lastAnswer < 120_000) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      decided = (await counts()).decided;
    }
    return {
      sent,
      answersMs: sender.answers.map((a) => a.ms).sort((a, b) => a - b),
      refused: sender.answers.filter((a) => a.status !== 200).length,
      unanswered: countReasons(sender.answers.flatMap((a) => (a.error ? [a.error] : []))),
      lost: sent - atEnd.recorded,
      undecidedAtEnd: atEnd.recorded - atEnd.decided,
      decidedWithinMs: decided === atEnd.recorded ? Date.now() - lastAnswer : Number.NaN,
      serverWithin: BUCKETS_MS.map((ms) => ({ ms, share: (answeredWithin(after, ms) - answeredWithin(before, ms)) / answered })),
      fewestRunning,
      peakLoad,
      loopDelay: {
        web: { p99: after.value("magis_nodejs_eventloop_lag_p99_seconds") * 1000, max: after.value("magis_nodejs_eventloop_lag_max_seconds") * 1000 },
        sender: sender.loopDelay,
      },
    };
  } finally {
    await rig.close().finally(() => environments.remove());
  }
}

/** Each distinct reason with how many times it came, most first. */
function countReasons(reasons: string[]): { why: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const why of reasons) counts.set(why, (counts.get(why) ?? 0) + 1);
  return [...counts].map(([why, count]) => ({ why, count })).sort((a, b) => b.count - a.count);
}

/** How many deliveries the web process answered within `ms`, by its histogram. */
function answeredWithin(metrics: PrometheusText, ms: number): number {
  return metrics.value("magis_webhook_answer_seconds_bucket", { le: String(ms / 1000) });
}
