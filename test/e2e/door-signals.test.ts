import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { scriptShopDemo } from "../../examples/shop-script.js";
import { inputVariables, readActionYml } from "../support/action-copy.js";
import { buildDist } from "../support/build-dist.js";
import { findLeftovers, killLeftovers, leftoversOnceSettled } from "../support/find-leftovers.js";
import { createBareRepository, gitEnv, startGitServer, type GitServer } from "../support/git-server.js";
import { appPrivateKey } from "../support/app-private-key.js";
import { freePort } from "../support/free-port.js";
import { serveFakeGitHub, type FakeGitHub } from "../support/github-api.js";
import { postWebhook } from "../support/post-webhook.js";
import { answersOk, startProcessGroup, waitFor, type ProcessGroup } from "../support/process-group.js";
import { reply, startScriptedModel, type ScriptedModel } from "../support/scripted-model.js";
import { labeledPayload } from "./payloads.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SHOP = path.join(ROOT, "examples/shop");
const ISSUE = fs.readFileSync(path.join(ROOT, "examples/shop-issue.md"), "utf8");
// The words of the sandboxed command each door is stopped in: the tests pass at once on the untouched shop, and hang
// once a Developer's change counts quantities (after the language server has checked that change).
// Its length is this test process's own, so that another run of this file on the machine is never taken for this one.
const MARKER = `sleep ${3600 + (process.pid % 100_000)}s`;
const CONFIG = `test_command: 'if grep -q item.quantity src/cart.js; then ${MARKER}; fi; node --test'\n`;
const TOKEN = "ghs_doorSignalsToken0123456789abcdefgh";
const OWNER = "Codertocat";
const REPO = "Hello-World";

let work: string;
let tmp: string;
let model: ScriptedModel;
let door: ProcessGroup | undefined;
const closers: (() => Promise<void>)[] = [];

/** The shop, with a config whose tests hang once the change is in, as a file tree. */
function shopFiles(): Record<string, string> {
  const files: Record<string, string> = { ".github/magis.yml": CONFIG };
  for (const name of fs.readdirSync(SHOP, { recursive: true, encoding: "utf8" })) {
    const file = path.join(SHOP, name);
    if (fs.statSync(file).isFile()) files[name] = fs.readFileSync(file, "utf8");
  }
  return files;
}

/** The shop as a git checkout at `dir`; returns its commit. */
function writeShopCheckout(dir: string): string {
  for (const [name, text] of Object.entries(shopFiles())) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: gitEnv(), encoding: "utf8" }).trim();
  git("init", "-q");
  git("add", ".");
  git("commit", "-q", "-m", "The shop");
  return git("rev-parse", "HEAD");
}

/** What every door is given: a private TMPDIR (where its copies and language servers' folders go), and the scripted model. */
function doorEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: path.join(work, "home"),
    TMPDIR: tmp,
    MAGIS_DB: path.join(work, "magis.db"),
    OPENAI_BASE_URL: model.url,
    MAGIS_MODEL: "scripted",
    MAGIS_LLM_MAX_RETRIES: "0",
    ...extra,
  };
}

/** Waits until the door runs the hanging tests (in the sandbox), with its language servers up when it has them. */
async function waitForHangingTests(group: ProcessGroup, languageServers: boolean): Promise<void> {
  await waitFor(
    group,
    () => {
      const { folders, processes } = findLeftovers(tmp, MARKER);
      const hanging = processes.some((line) => line.includes(MARKER));
      return hanging && (!languageServers || folders.some((name) => name.startsWith("magis-language-server-")));
    },
    { withinMs: 90_000, what: "the door running its tests in the sandbox" },
  );
}

/** Sends `signal` to the door's own process alone (as `timeout` and a CI runner do), and waits for it to exit. */
async function stopDoor(group: ProcessGroup, signal: NodeJS.Signals) {
  process.kill(group.pid, signal);
  const timer = new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 60_000));
  const ended = await Promise.race([group.exited, timer]);
  if (ended === "still running") throw new Error(`the door was still running 60 s after ${signal}; its output:\n${group.output()}`);
  return ended;
}

/** The shop as a repository on a git server, and a fake GitHub serving its issue and config to `installationId`. */
async function startRepository(installationId: number) {
  const gitRoot = path.join(work, "git");
  createBareRepository(gitRoot, `${OWNER}/${REPO}`, shopFiles());
  const git: GitServer = await startGitServer(gitRoot, { token: TOKEN });
  closers.push(() => git.close());
  const [title, ...body] = ISSUE.split("\n");
  const issue = { number: 1, title: title!.replace(/^# /, ""), body: body.join("\n") };
  const github = await serveFakeGitHub({
    owner: OWNER,
    repo: REPO,
    installationId,
    token: TOKEN,
    gitRoot,
    cloneUrl: `${git.url}/${OWNER}/${REPO}.git`,
    permissions: { Codertocat: "write" },
    ...(installationId === 0 ? { bot: { slug: "github-actions", userId: 41898282 } } : {}),
    issue,
    config: CONFIG,
  });
  closers.push(() => github.close());
  return { github, git, issue };
}

/** The job ended cancelled on the issue, not left as running. */
function expectCancelled(github: FakeGitHub): void {
  const status = github.comments.find((c) => c.body.includes("<!-- magis:status job="));
  expect(status?.body).toContain("cancelled");
}

beforeAll(() => {
  // The command line runs bin/magis.js, which loads dist/.
  buildDist();
}, 300_000);

afterEach(async () => {
  // Whatever a failed test left running goes: the door's group, then the sandboxed commands it started.
  await door?.stop(0);
  door = undefined;
  if (tmp) killLeftovers(tmp, MARKER);
  for (const close of closers.splice(0).reverse()) await close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function setUp(): Promise<void> {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-door-signals-"));
  tmp = path.join(work, "tmp");
  fs.mkdirSync(tmp);
  model = await startScriptedModel();
  closers.push(() => model.close());
  // The QA Engineer never answers: the run is stopped while the attempt's tests hang, or while QA is asked.
  scriptShopDemo(model, { "qa-review": () => reply.hang() });
}

describe.each(["SIGTERM", "SIGINT"] as const)("each door, sent %s mid-job, stops its job and leaves nothing", (signal) => {
  it("magis resolve: removes its copy of the checkout, stops its language servers and sandbox, exits non-zero", async () => {
    await setUp();
    const checkout = path.join(work, "shop");
    writeShopCheckout(checkout);
    fs.writeFileSync(path.join(work, "issue.md"), ISSUE);
    door = startProcessGroup(process.execPath, [path.join(ROOT, "bin/magis.js"), "resolve", "--repo", checkout, "--issue-file", "issue.md", "--out", "out"], {
      cwd: work,
      env: doorEnv(),
    });
    await waitForHangingTests(door, true);
    const { code } = await stopDoor(door, signal);
    expect(await leftoversOnceSettled(tmp, MARKER), door.output()).toEqual({ folders: [], processes: [] });
    expect(code, door.output()).toBe(signal === "SIGTERM" ? 143 : 130);
    expect(door.output()).toContain(`magis resolve: no patch. The run was stopped by ${signal}`);
  }, 150_000);

  it("magis eval: stops the running instance without recording it (a --resume runs it again), and leaves nothing", async () => {
    await setUp();
    const repos = path.join(work, "repos");
    const commit = writeShopCheckout(path.join(repos, "shop-1"));
    const instance = { instance_id: "shop-1", repo: "example/shop", base_commit: commit, problem_statement: ISSUE, gold_files: ["src/cart.js"] };
    fs.writeFileSync(path.join(work, "data.jsonl"), `${JSON.stringify(instance)}\n`);
    door = startProcessGroup(
      process.execPath,
      [path.join(ROOT, "bin/magis.js"), "eval", "--data", "data.jsonl", "--repos", "repos", "--out", "out", "--allow-commands", "--concurrency", "1"],
      { cwd: work, env: doorEnv() },
    );
    await waitForHangingTests(door, true);
    const { code } = await stopDoor(door, signal);
    expect(await leftoversOnceSettled(tmp, MARKER), door.output()).toEqual({ folders: [], processes: [] });
    expect(code, door.output()).toBe(signal === "SIGTERM" ? 143 : 130);
    expect(door.output()).toContain(`magis eval: stopped by ${signal} with 0 of 1 instance(s) done; run it again with --resume to continue`);
    expect(fs.readFileSync(path.join(work, "out/results.jsonl"), "utf8")).toBe("");
    expect(fs.readdirSync(path.join(work, "out/scratch"))).toEqual([]);
  }, 150_000);

  it("magis action: cancels its job, removes its clone and the copy beside it, stops its sandbox, exits non-zero", async () => {
    await setUp();
    const { github, issue } = await startRepository(0);
    const eventPath = path.join(work, "event.json");
    const payload = labeledPayload({ installationId: null });
    Object.assign(payload.issue, { title: issue.title, body: issue.body });
    fs.writeFileSync(eventPath, JSON.stringify(payload));
    const yml = readActionYml();
    const inputs = inputVariables(yml, { openai_base_url: model.url, model: "scripted" }, (text) => text.replace(/\$\{\{\s*github\.token\s*\}\}/g, TOKEN));
    // The Action's entry, src/action.ts, as the bundle runs it (the bundle is built from it).
    door = startProcessGroup(process.execPath, ["--import", "tsx", path.join(ROOT, "src/action.ts")], {
      cwd: ROOT,
      env: doorEnv({
        GITHUB_EVENT_NAME: "issues",
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
        GITHUB_API_URL: github.url,
        GITHUB_SERVER_URL: "https://github.com",
        GITHUB_RUN_ID: "4242",
        GITHUB_RUN_ATTEMPT: "1",
        RUNNER_TEMP: tmp,
        ...inputs,
      }),
    });
    await waitForHangingTests(door, false);
    const { code } = await stopDoor(door, signal);
    expect(await leftoversOnceSettled(tmp, MARKER), door.output()).toEqual({ folders: [], processes: [] });
    expect(code, door.output()).toBe(signal === "SIGTERM" ? 143 : 130);
    expect(door.output()).toContain(`magis action: ${signal} received`);
    expectCancelled(github);
  }, 150_000);

  it("magis serve (the App): stops its running job after the grace period, removes what it made, and exits 0", async () => {
    await setUp();
    const { github, git, issue } = await startRepository(77);
    const port = await freePort();
    door = startProcessGroup(process.execPath, [path.join(ROOT, "bin/magis.js"), "serve"], {
      cwd: work,
      env: doorEnv({
        HOST: "127.0.0.1",
        PORT: String(port),
        NODE_ENV: "production",
        LOG_LEVEL: "warn",
        APP_ID: "1",
        PRIVATE_KEY: appPrivateKey(),
        WEBHOOK_SECRET: "door-signals-secret",
        GHE_HOST: new URL(github.url).host,
        GHE_PROTOCOL: "http",
        MAGIS_GIT_BASE_URL: git.url,
        MAGIS_WORKDIR: tmp,
        MAGIS_SHUTDOWN_GRACE_SECONDS: "1",
      }),
    });
    const url = `http://127.0.0.1:${port}`;
    await waitFor(door, () => answersOk(`${url}/readyz`), { withinMs: 30_000, what: "magis serve being ready" });
    const payload = labeledPayload({ installationId: 77 });
    Object.assign(payload.issue, { title: issue.title, body: issue.body });
    const posted = await postWebhook(`${url}/api/github/webhooks`, "door-signals-secret", { event: "issues", payload, delivery: "door-signals-1" });
    expect(posted.status).toBe(200);
    await waitForHangingTests(door, true);
    const { code } = await stopDoor(door, signal);
    expect(await leftoversOnceSettled(tmp, MARKER), door.output()).toEqual({ folders: [], processes: [] });
    // A graceful stop: the work in hand was handed back or cancelled, as `magis serve --help` says.
    expect(code, door.output()).toBe(0);
    expectCancelled(github);
  }, 150_000);
});
