// The bot's own time for one job: everything but model calls (webhook → clone → locate/index → plan →
// code → publish → status), on a generated bare repository of ≥ 5,000 files served by the real
// `git http-backend`, with GitHub faked by nock and a scripted model that answers at once.
//
//   npm run bench:app -- [--files 5000] [--runs 3] [--workdir DIR]
//
// --workdir is where checkouts go (MAGIS_WORKDIR; default the system temp directory): on a slow disk,
// writing 5,000 files dominates the clone, and a tmpfs such as /dev/shm shows the bot's own cost.
// Each run is a full job through the app's HTTP middleware; the first run has a cold evolution memory
// (every candidate summarized), later runs a warm one. Model time is measured around each model call
// and subtracted per phase.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import nock from "nock";
import type { PhaseTiming } from "../src/jobs/phase-clock.js";
import { openDatabase } from "../src/backends/sqlite/database.js";
import { SqliteBackend } from "../src/backends/sqlite/sqlite-backend.js";
import { labeledPayload } from "../test/e2e/payloads.js";
import { scriptResolve } from "../test/e2e/script-resolve.js";
import { startApp } from "../test/e2e/start-app.js";
import { createBareRepository, startGitServer } from "../test/support/git-server.js";
import { fakeGitHub } from "../test/support/github-api.js";
import { compileEveryCheck } from "../test/support/github-spec/screen-exchange.js";
import { assertNoViolations } from "../test/support/github-spec/violations.js";
import { startScriptedModel } from "../test/support/scripted-model.js";
import { generateFiles } from "./lib/generate-files.js";
import { printTable } from "./lib/print-table.js";

const { values } = parseArgs({
  options: { files: { type: "string", default: "5000" }, runs: { type: "string", default: "3" }, workdir: { type: "string" } },
});
const fileCount = Number(values.files);
const runs = Number(values.runs);
const TOKEN = "ghs_benchInstallationToken0123456789ab";
const FULL = "Codertocat/Hello-World";

nock.disableNetConnect();
nock.enableNetConnect((host) => /^(127\.0\.0\.1|localhost)(:\d+)?$/.test(host));

const root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-bench-app-"));
try {
  const files = generateFiles(fileCount);
  const seedStart = performance.now();
  const bare = createBareRepository(root, FULL, files);
  execFileSync("git", ["repack", "-adq"], { cwd: bare });
  const packKb = Number(execFileSync("git", ["count-objects", "-v"], { cwd: bare, encoding: "utf8" }).match(/size-pack: (\d+)/)![1]);
  console.log(`repository: ${Object.keys(files).length} files, pack ${packKb} KB (generated in ${ms(performance.now() - seedStart)})`);
  console.log(`checkouts in: ${values.workdir ?? `${os.tmpdir()} (system temp)`}`);

  const git = await startGitServer(root, { token: TOKEN });
  const model = await startScriptedModel();
  const github = fakeGitHub({
    owner: "Codertocat",
    repo: "Hello-World",
    installationId: 77,
    token: TOKEN,
    gitRoot: root,
    cloneUrl: `${git.url}/${FULL}.git`,
    sizeKb: packKb,
    permissions: { Codertocat: "write" },
    config: "concurrency: 1\n",
    issue: { number: 1, title: "Spelling error in the README file", body: "It looks like you accidently spelled 'commit' with two 't's." },
  });
  // The fake holds every request and answer to GitHub's descriptions: compiled now, so that no run pays for it.
  compileEveryCheck();
  const timings: PhaseTiming[][] = [];
  const app = await startApp("bench-secret", {
    env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "sk-bench-not-secret", MAGIS_LLM_MAX_RETRIES: "0", MAGIS_TRACE_DIR: "", MAGIS_WORKDIR: values.workdir },
    seams: { backend: new SqliteBackend(openDatabase(path.join(root, "magis.db"))), onTimings: (_job, phases) => timings.push(phases) },
  });

  const rows: string[][] = [];
  for (let run = 1; run <= runs; run++) {
    scriptResolve(model);
    const calls = model.requests.length;
    const start = performance.now();
    const status = await app.deliver("issues", labeledPayload({ installationId: 77 }), `bench-${run}`);
    const answered = performance.now() - start;
    await app.services.settled();
    const total = performance.now() - start;
    const failed = (await app.services.jobs.withStatus("failed")).at(-1);
    if (status !== 200 || failed || (await app.services.jobs.withStatus("succeeded")).length !== run) {
      throw new Error(`run ${run} did not succeed: ${failed?.detail ?? `HTTP ${status}`}; model problems: ${model.problems.join("; ")}`);
    }
    const phases = timings[run - 1]!;
    const modelMs = phases.reduce((sum, p) => sum + p.modelMs, 0);
    rows.push([
      String(run),
      ms(answered),
      ms(total),
      ms(modelMs),
      ms(total - modelMs),
      String(model.requests.length - calls),
      ...phases.map((p) => ms(p.wallMs - p.modelMs)),
    ]);
    if (run === 1) rows.unshift(["run", "webhook answered", "job wall", "model", "bot's own", "model calls", ...phases.map((p) => `${p.phase} (own)`)]);
  }
  printTable(rows);
  assertNoViolations();
  console.log(`\nPR opened: ${github.pulls.length} (updated on later runs); branch: ${git.git(FULL, "rev-parse", "--short", "magis/issue-1")}`);
  await app.close();
  await model.close();
  await git.close();
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}

function ms(value: number): string {
  return `${Math.round(value)} ms`;
}
