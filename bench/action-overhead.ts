// The Action door's own time for one job: the action's bundle, built from the sources as `npm run build:action`
// builds it, run as the Actions runner runs a node24 action (a new Node process reading the event file, no
// node_modules), on a generated bare repository of ≥ 5,000 files served by the real `git http-backend`, GitHub faked
// over HTTP on 127.0.0.1 and a scripted model that answers at once. There is no install step to leave out: the runner
// only unpacks the action (bench:action-start times its start).
//
//   npm run bench:action -- [--files 5000] [--runs 3] [--workdir DIR] [--node PATH]
//
// --node is the Node that runs the bundle (default: this one; the runner's is Node 24); one without node:sqlite (20)
// gets the repository's better-sqlite3 through NODE_PATH.
//
// Each run prints the publish phase's GitHub requests after its line: when each was asked for, how long GitHub's pacing
// (Octokit's throttling: writes a second apart, notifications three) held it, and how long it took.
//
// Run 1 starts with an empty evolution memory; later runs reuse it through MAGIS_DB (the `database` input kept with
// actions/cache). Model time is the sum of the model calls' times in the job's trace.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { labeledPayload } from "../test/e2e/payloads.js";
import { scriptResolve } from "../test/e2e/script-resolve.js";
import { buildActionCopy, readActionYml } from "../test/support/action-copy.js";
import { createBareRepository, startGitServer } from "../test/support/git-server.js";
import { serveFakeGitHub } from "../test/support/github-api.js";
import { compileEveryCheck } from "../test/support/github-spec/screen-exchange.js";
import { assertNoViolations } from "../test/support/github-spec/violations.js";
import { runInProcessGroup } from "../test/support/run-in-process-group.js";
import { startScriptedModel } from "../test/support/scripted-model.js";
import { generateFiles } from "./lib/generate-files.js";
import { readRequestTimings, renderPublishTimeline } from "./lib/publish-timeline.js";

const { values } = parseArgs({
  options: {
    files: { type: "string", default: "5000" },
    runs: { type: "string", default: "3" },
    workdir: { type: "string" },
    node: { type: "string", default: process.execPath },
  },
});
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TOKEN = "ghs_benchWorkflowToken0123456789abcdef";
const FULL = "Codertocat/Hello-World";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-bench-action-"));
try {
  const buildStart = performance.now();
  const action = path.join(root, "action");
  fs.mkdirSync(action);
  await buildActionCopy(action);
  const hasSqlite = execFileSync(values.node, ["-p", '!!process.getBuiltinModule?.("node:sqlite")'], { encoding: "utf8" }).trim() === "true";
  const files = generateFiles(Number(values.files));
  const bare = createBareRepository(root, FULL, files);
  execFileSync("git", ["repack", "-adq"], { cwd: bare });
  const packKb = Number(execFileSync("git", ["count-objects", "-v"], { cwd: bare, encoding: "utf8" }).match(/size-pack: (\d+)/)![1]);
  console.log(
    `repository: ${Object.keys(files).length} files, pack ${packKb} KB (action built and repository generated in ${ms(performance.now() - buildStart)})`,
  );

  const git = await startGitServer(root, { token: TOKEN });
  const model = await startScriptedModel();
  const github = await serveFakeGitHub({
    owner: "Codertocat",
    repo: "Hello-World",
    installationId: 0,
    token: TOKEN,
    gitRoot: root,
    cloneUrl: `${git.url}/${FULL}.git`,
    sizeKb: packKb,
    permissions: { Codertocat: "write" },
    config: "concurrency: 1\n",
    bot: { slug: "github-actions", userId: 41898282 },
    issue: { number: 1, title: "Spelling error in the README file", body: "It looks like you accidently spelled 'commit' with two 't's." },
  });
  // The fake holds every request and answer to GitHub's descriptions: compiled now, so that no run pays for it.
  compileEveryCheck();
  try {
    for (let run = 1; run <= Number(values.runs); run++) {
      scriptResolve(model);
      const calls = model.requests.length;
      const payload = labeledPayload({ installationId: 0 });
      delete payload.installation;
      const eventPath = path.join(root, "event.json");
      fs.writeFileSync(eventPath, JSON.stringify(payload));
      const traceDir = path.join(root, `trace-${run}`);
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        GITHUB_EVENT_NAME: "issues",
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_REPOSITORY: FULL,
        GITHUB_API_URL: github.url,
        GITHUB_RUN_ID: String(run),
        GITHUB_TOKEN: TOKEN,
        RUNNER_TEMP: root,
        MAGIS_WORKDIR: values.workdir,
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: "sk-bench-not-secret",
        MAGIS_LLM_MAX_RETRIES: "0",
        MAGIS_DB: path.join(root, "cache", "magis.db"),
        MAGIS_TRACE_DIR: traceDir,
        ...(hasSqlite ? {} : { NODE_PATH: path.join(ROOT, "node_modules") }),
      };
      const start = performance.now();
      const { code, out } = await runInProcessGroup(values.node, [path.join(action, readActionYml().runs.main!)], { cwd: root, env, timeoutMs: 300_000 });
      const wall = performance.now() - start;
      if (code !== 0) throw new Error(`run ${run} exited ${code}:\n${out}`);
      const modelMs = fs
        .readdirSync(traceDir)
        .flatMap((f) => fs.readFileSync(path.join(traceDir, f), "utf8").split("\n").filter(Boolean))
        .reduce((sum, line) => sum + (JSON.parse(line) as { ms: number }).ms, 0);
      // The job's phases, from the timings line the step logs: where the bot's own time goes.
      const logged = /magis: job timings (\{.*\})/.exec(out)?.[1];
      const phases = logged ? (JSON.parse(logged) as { timings: { phase: string; wallMs: number; modelMs: number }[] }).timings : [];
      const split = phases.map((p) => `${p.phase} ${Math.round(p.wallMs - p.modelMs)}`).join(", ");
      console.log(
        `run ${run}: step wall ${ms(wall)}, model ${ms(modelMs)} (${model.requests.length - calls} calls), the bot's own ${ms(wall - modelMs)}${split ? ` | ${split}` : ""}`,
      );
      // The publish phase's GitHub requests (the step's debug lines), with what GitHub's pacing held each.
      for (const line of renderPublishTimeline(readRequestTimings(out), phases)) console.log(line);
    }
    assertNoViolations();
    console.log(`PR: ${github.pulls.map((p) => p.html_url).join(", ")}; branch ${git.git(FULL, "rev-parse", "--short", "magis/issue-1")}`);
  } finally {
    await github.close();
    await model.close();
    await git.close();
  }
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}

function ms(value: number): string {
  return `${Math.round(value)} ms`;
}
