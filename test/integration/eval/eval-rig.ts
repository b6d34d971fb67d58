import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathIn, userText } from "../../../examples/read-request.js";
import { main } from "../../../src/cli.js";
import { createBareRepository, gitEnv } from "../../support/git-server.js";
import { reply, startScriptedModel, type ScriptedModel, type ScriptedRequest } from "../../support/scripted-model.js";
import { judgeFiles } from "../../support/judge-files.js";
import { editBlockAnswer } from "../../support/edit-block-answer.js";

/** The repository of the generated instances: a greeting package, one file of it in Latin-1. */
export const FILES: Record<string, string | Uint8Array> = {
  "greet/hello.py": 'def hello(name):\n    return "hello " + name\n',
  // Latin-1 bytes: a patch of this file cannot travel as UTF-8 JSON, so its prediction does not apply.
  "greet/legacy.py": Buffer.from('# -*- coding: latin-1 -*-\n# Written by Ren\xe9 for the caf\xe9\ndef legacy():\n    return "coffee"\n', "latin1"),
  "greet/__init__.py": "from .hello import hello\nfrom .legacy import legacy\n",
  "README.md": "# greet\n\nGreetings for every occasion. The documentation lives in this file.\n",
};

const diff = (file: string, hunk: string[]) => [`diff --git a/${file} b/${file}`, `--- a/${file}`, `+++ b/${file}`, ...hunk, ""].join("\n");

/** The gold patches: hello() greets politely; legacy() offers tea; the README gets a section. */
export const GOLD = {
  hello: diff("greet/hello.py", ["@@ -1,2 +1,2 @@", " def hello(name):", '-    return "hello " + name', '+    return "Hello, " + name + "!"']),
  legacy: diff("greet/legacy.py", ["@@ -3,2 +3,2 @@", " def legacy():", '-    return "coffee"', '+    return "tea"']),
  readme: diff("README.md", ["@@ -3 +3,3 @@", " Greetings for every occasion. The documentation lives in this file.", "+", "+## Speed"]),
};

/** Three instances of `acme/greet` at `commit`: one resolved, one whose patch does not apply, one the Custodian finds nothing for. */
export function instanceLines(commit: string): string[] {
  const line = (id: string, problem: string, patch: string) =>
    JSON.stringify({ instance_id: id, repo: "acme/greet", base_commit: commit, problem_statement: problem, patch, hints_text: "" });
  return [
    line("acme__greet-1", "hello() should greet politely\nhello('Ann') returns 'hello Ann'; the greeting should be 'Hello, Ann!'.", GOLD.hello),
    line("acme__greet-2", "legacy() should offer tea\nlegacy() returns coffee; it should return tea.", GOLD.legacy),
    line("acme__greet-3", "The documentation website is slow\nOpening the documentation takes a minute.", GOLD.readme),
  ];
}

/** Every scripted answer reports these tokens, so the results' token counts follow from the calls alone. */
export const USAGE = { promptTokens: 100, completionTokens: 10 };

const RELEVANT: Record<string, string> = { "hello() should": "greet/hello.py", "legacy() should": "greet/legacy.py" };
const CODE: Record<string, { start: number; old: string; new: string }> = {
  "greet/hello.py": { start: 2, old: '    return "hello " + name', new: '    return "Hello, " + name + "!"' },
  "greet/legacy.py": { start: 4, old: '    return "coffee"', new: '    return "tea"' },
};

/** Scripts the team: the file the issue is about is relevant (none for the third), one range per file, QA approves. */
export function scriptTeam(model: ScriptedModel, hold?: (request: ScriptedRequest) => boolean): void {
  const answer = (value: (r: ScriptedRequest) => unknown) => (r: ScriptedRequest) => (hold?.(r) ? reply.hang() : reply.json(value(r), { usage: USAGE }));
  const relevantFile = (r: ScriptedRequest) => Object.entries(RELEVANT).find(([words]) => userText(r).includes(words))?.[1];
  model
    .script(
      "custodian-summarize-file",
      answer((r) => ({ summary: `Summary of ${pathIn(r)}.` })),
    )
    .script(
      "custodian-judge-relevance",
      answer((r) => judgeFiles(r, (file) => relevantFile(r) === file)),
    )
    .script(
      "manager-define-task",
      answer(() => ({ needs_change: true, description: "Change the returned text as the issue asks." })),
    )
    .script(
      "manager-design-developer",
      answer(() => ({ name: "Greeter", role: "You own the greeting." })),
    )
    .script(
      "manager-open-meeting",
      answer(() => ({ speech: "Fix it." })),
    )
    .script(
      "developer-speak",
      answer(() => ({ speech: "I will." })),
    )
    .script(
      "manager-close-meeting",
      answer(() => ({ speech: "Go." })),
    )
    .script(
      "developer-refine-role",
      answer(() => ({ role: "You own the greeting." })),
    )
    .script(
      "developer-design-qa",
      answer(() => ({ role: "You check the greeting." })),
    )
    .script(
      "developer-locate-lines",
      answer((r) => ({ path: pathIn(r), ranges: [{ start: CODE[pathIn(r)]!.start, end: CODE[pathIn(r)]!.start, why: "the text" }] })),
    )
    .script("developer-write-code", (r: ScriptedRequest) =>
      hold?.(r) ? reply.hang() : reply.text(editBlockAnswer(CODE[pathIn(r)]!.old, CODE[pathIn(r)]!.new), { usage: USAGE }),
    )
    .script(
      "qa-review",
      answer(() => ({ approved: true, comment: "Right." })),
    );
}

/** A scratch folder with the bare mirror `mirrors/acme/greet.git`, the data file, and a scripted model. */
export interface EvalRig {
  work: string;
  mirrors: string;
  repos: string;
  out: string;
  data: string;
  commit: string;
  model: ScriptedModel;
  env: NodeJS.ProcessEnv;
  /** Runs `magis eval` in this process with a clock that moves one second per reading. */
  eval(extra?: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

/** Makes the mirror (of FILES and `extra` files) and the data file (these lines, or the three instances), and starts the scripted model. */
export async function startEvalRig(lines?: (commit: string) => string[], extra: Record<string, string> = {}): Promise<EvalRig> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-eval-"));
  const mirrors = path.join(work, "mirrors");
  const bare = createBareRepository(mirrors, "acme/greet", { ...FILES, ...extra });
  const commit = execFileSync("git", ["--git-dir", bare, "rev-parse", "HEAD"], { env: gitEnv() }).toString().trim();
  const data = path.join(work, "dev.jsonl");
  fs.writeFileSync(data, (lines ?? instanceLines)(commit).join("\n") + "\n");
  const model = await startScriptedModel();
  const env = { PATH: process.env.PATH, OPENAI_BASE_URL: model.url, MAGIS_MODEL: "scripted", MAGIS_LLM_MAX_RETRIES: "0" };
  const rig: EvalRig = {
    work,
    mirrors,
    repos: path.join(work, "repos"),
    out: path.join(work, "out"),
    data,
    commit,
    model,
    env,
    async eval(extra = []) {
      const stdout: string[] = [];
      const stderr: string[] = [];
      let clock = 0;
      const code = await main(["eval", "--data", data, "--repos", rig.repos, "--out", rig.out, "--concurrency", "1", ...extra], {
        stdout: (t) => stdout.push(t),
        stderr: (t) => stderr.push(t),
        env,
        cwd: work,
        now: () => (clock += 1000),
      });
      return { code, stdout: stdout.join(""), stderr: stderr.join("") };
    },
    async close() {
      await model.close();
      fs.rmSync(work, { recursive: true, force: true });
    },
  };
  return rig;
}

/** What a missing mirror of `owner/name` is reported as, whole: each of the six places it was looked for, and how to make one. */
export function noMirrorMessage(mirrors: string, owner: string, name: string): string {
  const at = [`${owner}+${name}/repo`, `${owner}+${name}`, `${owner}/${name}.git`, `${owner}/${name}`, `${name}.git`, name].map((place) =>
    path.join(mirrors, place),
  );
  return `no git mirror of ${owner}/${name} under ${mirrors}: looked for a bare clone (a HEAD file) or a clone (a .git) at ${at.join(", ")}; make one with: git clone --bare https://github.com/${owner}/${name}.git ${at[2]}`;
}

/** The JSON Lines of an output file, parsed. */
export function readLines(file: string): Record<string, unknown>[] {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
