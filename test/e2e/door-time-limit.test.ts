import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, expect, it } from "vitest";
import { buildDist } from "../support/build-dist.js";
import { killLeftovers, leftoversOnceSettled } from "../support/find-leftovers.js";
import { gitEnv } from "../support/git-server.js";
import { runInProcessGroup } from "../support/run-in-process-group.js";
import { reply, startScriptedModel, type ScriptedModel } from "../support/scripted-model.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
// The tests of the checkout hang too: the time limit stops them with the model's call.
// Its length is this test process's own, so that another run of this file on the machine is never taken for this one.
const MARKER = `sleep ${3600 + (process.pid % 100_000)}s`;
// 3 seconds.
const CONFIG = `job_timeout_minutes: 0.05\ntest_command: ${MARKER}\n`;
const ISSUE = "# The total is wrong\n\n`total()` ignores quantities.\n";
const LIMIT_MESSAGE = "The run took longer than job_timeout_minutes (0.05 minutes) and was stopped";

let work: string;
let tmp: string;
let model: ScriptedModel | undefined;

beforeAll(() => {
  // The command line runs bin/magis.js, which loads dist/.
  buildDist();
}, 300_000);

afterEach(async () => {
  if (tmp) killLeftovers(tmp, MARKER);
  await model?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** A checkout whose config allows 3 seconds a run, and a model that never answers; returns the checkout's commit. */
async function setUp(checkout: string): Promise<string> {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-door-time-limit-"));
  tmp = path.join(work, "tmp");
  fs.mkdirSync(tmp);
  const dir = path.join(work, checkout);
  for (const [name, text] of Object.entries({ ".github/magis.yml": CONFIG, "src/cart.py": "def total(items):\n    return sum(i.price for i in items)\n" })) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: gitEnv(), encoding: "utf8" }).trim();
  git("init", "-q");
  git("add", ".");
  git("commit", "-q", "-m", "A cart");
  fs.writeFileSync(path.join(work, "issue.md"), ISSUE);
  model = await startScriptedModel();
  for (const prompt of ["custodian-summarize-file", "custodian-judge-relevance"]) model.script(prompt, () => reply.hang());
  return git("rev-parse", "HEAD");
}

/** `magis ARGS` as a child process (bin/magis.js) in the work folder, with a private TMPDIR and the scripted model. */
function magis(args: string[]) {
  return runInProcessGroup(process.execPath, [path.join(ROOT, "bin/magis.js"), ...args], {
    cwd: work,
    env: {
      PATH: process.env.PATH,
      HOME: path.join(work, "home"),
      TMPDIR: tmp,
      MAGIS_DB: path.join(work, "magis.db"),
      OPENAI_BASE_URL: model!.url,
      MAGIS_MODEL: "scripted",
      MAGIS_LLM_MAX_RETRIES: "0",
    },
    timeoutMs: 60_000,
  });
}

it("magis resolve stops at the checkout's job_timeout_minutes, says which setting to raise, and leaves nothing", async () => {
  await setUp("repo");
  const run = await magis(["resolve", "--repo", "repo", "--issue-file", "issue.md", "--out", "out"]);
  expect(run.code, run.out).toBe(1);
  expect(run.out).toContain(
    `magis resolve: no patch. ${LIMIT_MESSAGE}. Next: raise job_timeout_minutes (at most 240) in the checkout's .github/magis.yml, or narrow the issue with --hints-file.`,
  );
  expect(fs.existsSync(path.join(work, "out/patch.diff"))).toBe(false);
  expect(await leftoversOnceSettled(tmp, MARKER)).toEqual({ folders: [], processes: [] });
}, 90_000);

it("magis eval stops each instance at its checkout's job_timeout_minutes and records why", async () => {
  const commit = await setUp("repos/cart-1");
  const instance = { instance_id: "cart-1", repo: "example/cart", base_commit: commit, problem_statement: ISSUE, gold_files: ["src/cart.py"] };
  fs.writeFileSync(path.join(work, "data.jsonl"), `${JSON.stringify(instance)}\n`);
  const run = await magis(["eval", "--data", "data.jsonl", "--repos", "repos", "--out", "out", "--allow-commands"]);
  expect(run.code, run.out).toBe(0);
  const result = JSON.parse(fs.readFileSync(path.join(work, "out/results.jsonl"), "utf8")) as { failure: { stage: string; reason: string } };
  expect(result.failure).toEqual({ stage: "locate", reason: LIMIT_MESSAGE });
  expect(await leftoversOnceSettled(tmp, MARKER)).toEqual({ folders: [], processes: [] });
}, 90_000);
