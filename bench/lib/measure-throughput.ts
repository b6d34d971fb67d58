import os from "node:os";
import type { PhaseTiming } from "../../src/jobs/phase-clock.js";
import { labeledPayload } from "../../test/e2e/payloads.js";
import { INSTALLATION, startScaleRig } from "../../test/support/scale-rig.js";
import { assertSandboxedTests, SANDBOX_CONFIG, tallyTests, workerEnvironments, type TestsMode, type TestsTally } from "./sandboxed-tests.js";

/** What one throughput run measured. */
export interface ThroughputRun {
  workers: number;
  jobs: number;
  /** From the first delivery to the last job's end. */
  seconds: number;
  perMinute: number;
  /** Per job, on average: its wall time and the part of it spent inside model calls, by phase. */
  phases: { phase: string; wallMs: number; modelMs: number }[];
  /** Per job, on average: its model calls and its writes to GitHub (POST, PATCH). */
  modelCalls: number;
  githubWrites: number;
  /** Gaps between successive GitHub writes of the run (milliseconds), meaningful with one worker: its writes alone. */
  writeGaps: number[];
  /** The 1-minute load average, highest seen during the run. */
  peakLoad: number;
  /** In the sandbox mode: the environments built and reused and the tests passed, from the pull requests. */
  tests?: TestsTally;
}

/**
 * Runs `jobs` issue runs (each on an issue of its own, so any of them may run beside another) on `workers` worker
 * processes of one job at a time, with one web process taking the labels, and times them to the last job's end.
 */
export async function measureThroughput(options: { workers: number; jobs: number; latencyMs: number; tests: TestsMode }): Promise<ThroughputRun> {
  const sandboxed = options.tests === "sandbox";
  const rig = await startScaleRig({ issues: options.jobs, latencyMs: options.latencyMs, concurrency: 1, ...(sandboxed && { config: SANDBOX_CONFIG }) });
  const environments = workerEnvironments(options.tests);
  let peakLoad = os.loadavg()[0]!;
  const sampler = setInterval(() => (peakLoad = Math.max(peakLoad, os.loadavg()[0]!)), 1_000);
  try {
    const [web, ...workers] = await Promise.all([
      rig.serve("web"),
      // At info, each worker logs every job's phase timings.
      ...Array.from({ length: options.workers }, (_, n) => rig.serve("worker", { LOG_LEVEL: "info", ...environments.envOf(n) })),
    ]);
    const started = Date.now();
    for (let n = 1; n <= options.jobs; n++) {
      const { status } = await rig.deliver(web!, "issues", labeledPayload({ installationId: INSTALLATION, issueNumber: n }), `label-${n}`);
      if (status !== 200) throw new Error(`the web process answered the label of issue ${n} with ${status}`);
    }
    const ended = await lastJobEnd(rig.db, options.jobs, options.jobs * 60_000);
    const seconds = (ended - started) / 1000;
    const timings = workers.flatMap((w) => jobTimings(w.output()));
    if (timings.length !== options.jobs) throw new Error(`expected the phase timings of ${options.jobs} jobs in the workers' logs, found ${timings.length}`);
    const writes = rig.github.requests.filter((r) => r.method !== "GET" && !r.path.endsWith("/access_tokens"));
    const tests = sandboxed ? tallyTests(rig.github.pulls.map((pull) => pull.body)) : undefined;
    if (tests) assertSandboxedTests(tests, options.jobs, options.workers);
    return {
      workers: options.workers,
      jobs: options.jobs,
      seconds,
      perMinute: options.jobs / (seconds / 60),
      phases: averagePhases(timings),
      modelCalls: rig.model.requests.length / options.jobs,
      githubWrites: writes.length / options.jobs,
      writeGaps: writes.slice(1).map((w, i) => w.at - writes[i]!.at),
      peakLoad,
      ...(tests && { tests }),
    };
  } finally {
    clearInterval(sampler);
    await rig.close().finally(() => environments.remove());
  }
}

/** Waits until `jobs` jobs succeeded and returns when the last ended (ms since the epoch); throws when one failed or time runs out. */
async function lastJobEnd(db: import("pg").Pool, jobs: number, withinMs: number): Promise<number> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const { rows } = await db.query("SELECT status, detail, updated_at FROM jobs");
    const failed = rows.find((r) => r.status === "failed" || r.status === "cancelled");
    if (failed) throw new Error(`a job ${failed.status}: ${failed.detail}`);
    const done = rows.filter((r) => r.status === "succeeded");
    if (done.length === jobs) return Math.max(...done.map((r) => Number(r.updated_at)));
    if (Date.now() > deadline) throw new Error(`only ${done.length} of ${jobs} jobs succeeded within ${withinMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The phase timings of every job a worker logged (its "job timings" lines, JSON). */
function jobTimings(output: string): PhaseTiming[][] {
  return output
    .split("\n")
    .filter((line) => line.includes('"job timings"'))
    .map((line) => (JSON.parse(line) as { timings: PhaseTiming[] }).timings);
}

function averagePhases(jobs: PhaseTiming[][]): ThroughputRun["phases"] {
  const sums = new Map<string, { wallMs: number; modelMs: number }>();
  for (const timing of jobs.flat()) {
    const sum = sums.get(timing.phase) ?? { wallMs: 0, modelMs: 0 };
    sums.set(timing.phase, { wallMs: sum.wallMs + timing.wallMs, modelMs: sum.modelMs + timing.modelMs });
  }
  return [...sums].map(([phase, sum]) => ({ phase, wallMs: sum.wallMs / jobs.length, modelMs: sum.modelMs / jobs.length }));
}
