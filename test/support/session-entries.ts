import { AGENTS } from "../../src/config.js";
import type { SessionEntry, StoredSessionEntry } from "../../src/session/types.js";
import type { EnvironmentReport, TestRun } from "../../src/pipeline/types.js";

/** What a synthetic finished job is made of: how many model calls and commands, and text to plant in it. */
export interface SyntheticSession {
  modelCalls?: number;
  commands?: number;
  /** The title. */
  title?: string;
  /** The text of every model answer (and of one prompt message). */
  answer?: string;
  /** The output of every command. */
  output?: string;
  /** The result's patch (and the first attempt's diff). */
  patch?: string;
  /** The URL as the job entry names it. */
  url?: string;
  /** Characters of code each call's user message carries beyond the issue (a located file, the task's context). */
  promptChars?: number;
}

/** Code-like text of about `chars` characters, to stand for the file contents a prompt shows. */
function codeText(chars: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i += 1) {
    const line = `    value_${i} = compute(tokens[${i % 7}], depth=${i % 5})  # step ${i}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n").slice(0, chars);
}

export const SAMPLE_PATCH = [
  "diff --git a/src/parse.py b/src/parse.py",
  "--- a/src/parse.py",
  "+++ b/src/parse.py",
  "@@ -10,7 +10,7 @@ def parse(text):",
  "     tokens = split(text)",
  "-    return tokens[0]",
  "+    return tokens[0] if tokens else None",
  "     # the end",
  "",
].join("\n");

const run = (outcome: TestRun["outcome"], tail: string, durationMs = 4200): TestRun => ({
  outcome,
  exitCode: outcome === "passed" ? 0 : 1,
  counts: { passed: outcome === "passed" ? 12 : 11, failed: outcome === "passed" ? 0 : 1, skipped: 0 },
  failures: outcome === "passed" ? [] : ["tests/test_parse.py::test_empty"],
  tail,
  durationMs,
});

const environment: EnvironmentReport = {
  source: ".github/magis.yml environment",
  how: "built",
  steps: ["setup[1]", "setup[2]"],
  stepSeconds: 41.5,
  readySeconds: 44.2,
  key: "0123456789ab",
  unsupported: [],
  shadowed: [],
  network: {
    reached: [{ host: "registry.npmjs.org", count: 31, bytes: 2_400_000 }],
    refused: [{ host: "evil.example", count: 2, bytes: 0, why: "not in MAGIS_SETUP_ALLOW_HOSTS" }],
  },
  kept: { kept: true },
};

/**
 * A finished job's session as the recorder would write it: the job, its stages, model calls spread over the agents,
 * commands, the pipeline's progress (located files, tasks, the team, the kick-off, the plan, the tests, the
 * reproduction, an attempt with candidates, the task's end), the result and the outcome. Times advance one second per
 * entry from a fixed start, so durations are known.
 */
export function syntheticSession(options: SyntheticSession = {}): StoredSessionEntry[] {
  const answer = options.answer ?? '{"reason": "The parser assumes a token.", "tasks": [{"path": "src/parse.py"}]}';
  const output = options.output ?? "collected 12 items\n\ntests/test_parse.py ............ [100%]\n\n12 passed in 0.42s\n";
  const patch = options.patch ?? SAMPLE_PATCH;
  const entries: SessionEntry[] = [];
  const push = (entry: SessionEntry) => entries.push(entry);
  const stage = (name: string, state: "started" | "ended") => push({ kind: "stage", data: { name, state } });
  const calls = options.modelCalls ?? 8;
  const code = codeText(options.promptChars ?? 0);
  const commands = options.commands ?? 3;
  let callsMade = 0;
  const call = (agent: (typeof AGENTS)[number], prompt: string) => {
    callsMade += 1;
    push({
      kind: "model-call",
      data: {
        agent,
        prompt,
        promptHash: `${callsMade.toString(16).padStart(8, "0")}aa11bb22cc33dd44`,
        model: agent === "developer" ? "gpt-4o" : "gpt-4o-mini",
        promptTokens: 1500 + callsMade,
        completionTokens: 300,
        ms: 1200,
        messages: [
          { role: "system", content: `You are the ${agent}. Answer in the format shown.` },
          { role: "user", content: `The issue:\n<issue>\n${options.title ?? "parse() fails on an empty string"}\n</issue>\n${options.answer ?? ""}${code}` },
        ],
        raw: answer,
        parsed: { reason: "The parser assumes a token." },
        usd: agent === "developer" ? 0.0068 : 0.0004,
      },
    });
  };
  const command = (purpose: string, outcome: TestRun["outcome"]) =>
    push({
      kind: "command",
      data: { sandbox: "bubblewrap", command: "python -m pytest -q", purpose, outcome, exitCode: outcome === "passed" ? 0 : 1, durationMs: 4200, tail: output },
    });

  push({
    kind: "job",
    data: {
      id: 42,
      jobKind: "resolve-issue",
      repository: "octo/parser",
      number: 7,
      title: options.title ?? "parse() fails on an empty string",
      url: options.url ?? "https://github.com/octo/parser/issues/7",
    },
  });
  stage("locate", "started");
  const spread = (count: number, agent: (typeof AGENTS)[number], prompt: string) => {
    for (let i = 0; i < count; i += 1) call(agent, prompt);
  };
  const quarter = Math.floor(calls / 4);
  spread(quarter, "custodian", "custodian-summarize-file");
  push({
    kind: "progress",
    data: {
      stage: "located",
      files: [
        { path: "src/parse.py", score: 7.25, kept: true, reason: "parse() is the function the issue names" },
        { path: "README.md", score: 1.5, kept: false, reason: "documentation" },
      ],
    },
  });
  stage("locate", "ended");
  stage("plan", "started");
  spread(quarter, "manager", "manager-define-task");
  push({ kind: "progress", data: { stage: "tasks", tasks: [{ path: "src/parse.py", description: "Return None for an empty input." }] } });
  push({ kind: "progress", data: { stage: "team", developers: [{ name: "Dev Ada", path: "src/parse.py", role: "A careful Python developer." }] } });
  push({
    kind: "progress",
    data: {
      stage: "kickoff",
      transcript: [
        { speaker: "Manager", text: "We fix parse() for empty input." },
        { speaker: "Dev Ada", text: "I will guard the index." },
      ],
    },
  });
  push({ kind: "progress", data: { stage: "plan", plan: { steps: [["src/parse.py"]], rationale: "One file, one step." } } });
  stage("plan", "ended");
  stage("code", "started");
  for (let i = 0; i < commands; i += 1) command(i === 0 ? "tests before" : "tests with the change", i === 0 ? "failed" : "passed");
  push({
    kind: "progress",
    data: {
      stage: "tests",
      tests: {
        command: "python -m pytest -q",
        sandbox: { label: "in bubblewrap", description: "bubblewrap 0.8" },
        before: run("failed", output),
        after: { run: run("passed", output), newFailures: [], fixed: ["tests/test_parse.py::test_empty"] },
        environment,
      },
    },
  });
  push({
    kind: "progress",
    data: {
      stage: "reproduction",
      reproduction: {
        choice: { way: "dynamic", reason: "The issue gives a command that fails." },
        attempts: [
          {
            number: 1,
            script: { path: "repro.py", command: "python repro.py", content: "from parse import parse\nparse('')\n", expected: "an IndexError" },
            run: run("failed", output),
            reproduced: true,
            reason: "It raises IndexError.",
          },
        ],
        reproduced: {
          script: { path: "repro.py", command: "python repro.py", content: "parse('')\n", expected: "an IndexError" },
          before: run("failed", "IndexError: list index out of range\n"),
        },
        after: run("passed", "ok\n"),
      },
    },
  });
  spread(calls - 3 * quarter, "developer", "developer-write-edit");
  push({
    kind: "progress",
    data: {
      stage: "attempt",
      path: "src/parse.py",
      attempt: {
        number: 1,
        diff: patch,
        review: { approved: true, comment: "The guard is right." },
        candidates: {
          sampled: 3,
          dropped: [{ number: 3, reason: "the edit does not apply" }],
          groups: [
            { members: [1, 2], diff: SAMPLE_PATCH, normalized: "ab".repeat(32) },
            { members: [4], diff: SAMPLE_PATCH.replace("else None", "else ''"), normalized: "cd".repeat(32), out: "it breaks tests/test_parse.py::test_other" },
          ],
          chosen: 0,
          why: "two of three candidates agree",
        },
      },
    },
  });
  spread(quarter, "qa", "qa-review-change");
  push({
    kind: "progress",
    data: {
      stage: "task-done",
      outcome: {
        path: "src/parse.py",
        developer: { name: "Dev Ada", path: "src/parse.py", role: "A careful Python developer." },
        qaRole: "QA for parsers",
        attempts: [{ number: 1, diff: patch }],
        approved: true,
        kept: true,
        diff: patch,
        before: "",
        after: "",
        encoding: "utf-8",
      },
    },
  });
  stage("code", "ended");
  stage("publish", "started");
  push({
    kind: "result",
    data: {
      patch,
      usage: {
        calls,
        byAgent: Object.fromEntries(
          AGENTS.map((agent) => [agent, { promptTokens: 0, completionTokens: 0, totalTokens: 0, calls: 0, model: "gpt-4o" }]),
        ) as never,
        wallMs: 60_000,
      },
      environment,
    },
  });
  stage("publish", "ended");
  push({ kind: "outcome", data: { status: "succeeded", detail: "opened a pull request", pullRequest: "https://github.com/octo/parser/pull/8" } });
  const start = Date.UTC(2026, 11, 2, 12, 0, 0);
  return entries.map((entry, index) => ({ ...entry, seq: index + 1, at: start + index * 1000 }));
}
