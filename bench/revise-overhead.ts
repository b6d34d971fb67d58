// The bot's own time for one revision job (webhook → read review → clone head → triage → code → push → answers),
// on a generated bare repository of ≥ 5,000 files, GitHub faked by nock, a scripted model that answers at once.
// With --ci the revision is a CI fix: a failed check suite on the bot's head, its check run, annotation and a job log
// of --log-mb megabytes behind the logs redirect are read instead of a review.
//
//   npm run bench:revise -- [--files 5000] [--runs 3] [--workdir DIR]
//   npm run bench:ci-fix -- [--files 5000] [--runs 3] [--log-mb 5] [--workdir DIR]
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import nock from "nock";
import type { PhaseTiming } from "../src/jobs/phase-clock.js";
import { openDatabase } from "../src/backends/sqlite/database.js";
import { SqliteBackend } from "../src/backends/sqlite/sqlite-backend.js";
import { ciPayload, reviewComment, reviewPayload } from "../test/e2e/payloads.js";
import { REPO_FILES } from "../test/e2e/script-resolve.js";
import { README_HUNK, REVISE_LINE_4, scriptRevisions, seedBotPullRequest, LINE_4_REVISED, LINE_4 } from "../test/e2e/script-revise.js";
import { startApp } from "../test/e2e/start-app.js";
import { createBareRepository, startGitServer } from "../test/support/git-server.js";
import { fakeGitHub, type FakeCheckRun } from "../test/support/github-api.js";
import { compileEveryCheck } from "../test/support/github-spec/screen-exchange.js";
import { assertNoViolations } from "../test/support/github-spec/violations.js";
import { startScriptedModel } from "../test/support/scripted-model.js";

const { values } = parseArgs({
  options: {
    files: { type: "string", default: "5000" },
    runs: { type: "string", default: "3" },
    workdir: { type: "string" },
    ci: { type: "boolean", default: false },
    "log-mb": { type: "string", default: "5" },
  },
});
const fileCount = Number(values.files);
const runs = Number(values.runs);
const workDir = values.workdir;
const TOKEN = "ghs_benchInstallationToken0123456789ab";
const FULL = "Codertocat/Hello-World";
nock.disableNetConnect();
nock.enableNetConnect((host) => /^(127\.0\.0\.1|localhost)(:\d+)?$/.test(host));

const files: Record<string, string> = { ...REPO_FILES };
for (let i = 0; i < fileCount; i++)
  files[`src/module${Math.floor(i / 100)}/part${Math.floor(i / 10) % 10}/handler_${i}.js`] =
    `export function handler_${i}(r) {\n  return r.values[${i % 7}] * ${i};\n}\n`;
const root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-bench-rev-"));
try {
  const bare = createBareRepository(root, FULL, files);
  const seeded = seedBotPullRequest(root);
  execFileSync("git", ["repack", "-adq"], { cwd: bare });
  const git = await startGitServer(root, { token: TOKEN });
  const model = await startScriptedModel();
  const comments = Array.from({ length: runs }, (_, i) =>
    reviewComment({ id: 500 + i, reviewId: 90 + i, path: "README.md", line: 4, body: "End with 'to GitHub'.", diffHunk: README_HUNK }),
  );
  const checkRuns: FakeCheckRun[] = [];
  fakeGitHub({
    owner: "Codertocat",
    repo: "Hello-World",
    installationId: 77,
    token: TOKEN,
    gitRoot: root,
    cloneUrl: `${git.url}/${FULL}.git`,
    permissions: { Codertocat: "write" },
    issue: { number: 1, title: "Spelling error in the README file", body: "typo" },
    pulls: seeded.pulls,
    reviewComments: comments,
    checkRuns,
    config: `ci_fix_attempts: ${Math.min(5, runs)}\n`,
  });
  // The fake holds every request and answer to GitHub's descriptions: compiled now, so that no run pays for it.
  compileEveryCheck();
  // The job log's download host, which the bot asks for the log's end (a server that sends the whole log is read as a stream).
  const log = Buffer.alloc(Number(values["log-mb"]) * 1024 * 1024, "2026-11-23T10:00:00.0000000Z npm test: still failing\n");
  nock("https://logs.bench.test")
    .persist()
    .get(/\/jobs\/\d+/)
    .reply(200, () => log);
  const timings: PhaseTiming[][] = [];
  const app = await startApp("bench", {
    env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "sk-bench", MAGIS_LLM_MAX_RETRIES: "0", MAGIS_TRACE_DIR: "", MAGIS_WORKDIR: workDir },
    seams: { backend: new SqliteBackend(openDatabase(path.join(root, "magis.db"))), onTimings: (_j, p) => timings.push(p) },
  });
  console.log(
    `repository: ${Object.keys(files).length} files; checkouts in ${workDir ?? os.tmpdir()}${values.ci ? `; CI fixes, job log ${values["log-mb"]} MB sent whole` : ""}`,
  );
  if (values.ci && runs > 5) throw new Error("--ci runs at most 5 fixes in a row (ci_fix_attempts is at most 5)");
  for (let run = 0; run < runs; run++) {
    // Alternate the edit so every run has a real change to push.
    const [from, to] = run % 2 === 0 ? [LINE_4, LINE_4_REVISED] : [LINE_4_REVISED, LINE_4];
    scriptRevisions(model, { ...REVISE_LINE_4, edit: { ...REVISE_LINE_4.edit, old: from, new: to } });
    const head = git.git(FULL, "rev-parse", "magis/issue-1");
    checkRuns.push({
      id: 9000 + run,
      headSha: head,
      name: "docs",
      conclusion: "failure",
      title: "1 problem",
      summary: "README.md line 4 says too little.",
      annotations: [{ path: "README.md", start_line: 4, annotation_level: "failure", message: "End with 'to GitHub'." }],
      logUrl: `https://logs.bench.test/jobs/${9000 + run}`,
    });
    const start = performance.now();
    if (values.ci)
      await app.deliver(
        "check_suite",
        ciPayload("check_suite", { sha: head, branch: "magis/issue-1", pull: 2, conclusion: "failure", installationId: 77 }),
        `b-${run}`,
      );
    else await app.deliver("pull_request_review", reviewPayload({ installationId: 77, reviewId: 90 + run, state: "changes_requested" }), `b-${run}`);
    const answered = performance.now() - start;
    await app.services.settled();
    const total = performance.now() - start;
    const failed = await app.services.jobs.withStatus("failed");
    if (failed.length) throw new Error(failed[0]!.detail ?? "failed");
    const phases = timings[run]!;
    const modelMs = phases.reduce((s, p) => s + p.modelMs, 0);
    console.log(
      `run ${run + 1}: webhook answered ${Math.round(answered)} ms, job wall ${Math.round(total)} ms, model ${Math.round(modelMs)} ms, bot's own ${Math.round(total - modelMs)} ms | ${phases.map((p) => `${p.phase} ${Math.round(p.wallMs - p.modelMs)}`).join(", ")}`,
    );
  }
  assertNoViolations();
  console.log(`commits on the bot branch: ${git.git(FULL, "rev-list", "--count", "main..magis/issue-1")}`);
  await app.close();
  await model.close();
  await git.close();
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
