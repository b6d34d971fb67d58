import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareCheckout } from "../../../src/eval/prepare-checkouts.js";
import { gitEnv } from "../../support/git-server.js";
import { reply } from "../../support/scripted-model.js";
import { instanceLines, noMirrorMessage, readLines, startEvalRig, type EvalRig } from "./eval-rig.js";

let rig: EvalRig;
let base: string;
let data: string;

beforeAll(async () => {
  rig = await startEvalRig();
  // Every model call fails, so each result lists BM25's own files (with the history's), whatever the team would keep.
  rig.model.script("custodian-summarize-file", () => reply.status(500));
  // The mirror's main: files the words miss, a past fix like the issue (the base commit), then a later one.
  const work = path.join(rig.work, "seed");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: work, env: gitEnv(), encoding: "utf8" }).trim();
  execFileSync("git", ["clone", "-q", path.join(rig.mirrors, "acme", "greet.git"), work], { env: gitEnv() });
  const commit = (message: string, file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    fs.writeFileSync(path.join(work, file), text);
    git("add", "-A");
    git("commit", "-q", "-m", message);
  };
  commit("Add gestures", "gestures/bow.py", "def bow_deeply():\n    return 1\n");
  commit("Add more gestures", "gestures/wave.py", "def wave_hand():\n    return 2\n");
  commit("hello() greets Ann politely now", "gestures/bow.py", "def bow_deeply():\n    return 3\n");
  base = git("rev-parse", "HEAD");
  commit("hello() should greet politely: Hello, Ann!", "gestures/wave.py", "def wave_hand():\n    return 4\n");
  git("push", "-q", "origin", "main");
  data = path.join(rig.work, "history.jsonl");
  fs.writeFileSync(data, instanceLines(base)[0]! + "\n");
});

afterAll(() => rig.close());

describe("magis eval with the repository's history", () => {
  const run = async (repos: string, extra: string[]) => {
    const out = path.join(rig.work, `out-${path.basename(repos)}`);
    const { code, stderr } = await rig.eval(["--data", data, "--repos", repos, "--out", out, ...extra]);
    expect(code).toBe(0);
    return { files: readLines(path.join(out, "results.jsonl"))[0]!.located as string[], stderr };
  };
  const located = async (repos: string, extra: string[]) => (await run(repos, extra)).files;

  it("reads the history before the base commit from the mirror, never the commits after it", async () => {
    const files = await located(path.join(rig.work, "repos-mirror"), ["--prepare-from", rig.mirrors]);
    expect(files).toContain("gestures/bow.py");
    expect(files).not.toContain("gestures/wave.py");
  });

  it("reads the same from a checkout's own .git at the base commit, though it holds the later commits too", async () => {
    const repos = path.join(rig.work, "repos-git");
    const checkout = path.join(repos, "acme__greet-1");
    execFileSync("git", ["clone", "-q", path.join(rig.mirrors, "acme", "greet.git"), checkout], { env: gitEnv() });
    execFileSync("git", ["checkout", "-q", base], { cwd: checkout, env: gitEnv() });
    const files = await located(repos, []);
    expect(files).toContain("gestures/bow.py");
    expect(files).not.toContain("gestures/wave.py");
  });

  it("says which instance's history it could not read, and why, and ranks that instance without it", async () => {
    const repos = path.join(rig.work, "repos-no-mirror");
    const instance = { instance_id: "acme__greet-1", repo: "acme/greet", base_commit: base, problem_statement: "", gold_files: [] };
    await prepareCheckout(instance, rig.mirrors, repos);
    const elsewhere = path.join(rig.work, "other-mirrors");
    fs.mkdirSync(elsewhere);
    const { files, stderr } = await run(repos, ["--prepare-from", elsewhere]);
    expect(stderr).toContain(
      `acme__greet-1: the commit history was not read (${noMirrorMessage(elsewhere, "acme", "greet")}); its files are ranked without it\n`,
    );
    expect(stderr.split("the commit history was not read")).toHaveLength(2);
    expect(files).not.toContain("gestures/bow.py");
  });
});
