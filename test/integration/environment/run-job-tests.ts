import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseConfig } from "../../../src/config.js";
import type { EnvironmentShelf } from "../../../src/environment/index.js";
import { startTestBench } from "../../../src/pipeline/tests/start-test-bench.js";
import type { CommandPolicy, EnvironmentReport, ProgressEvent, StageContext, TestsReport } from "../../../src/pipeline/types.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";

/** What one job's tests came to: the tests' report, the environment's (once kept), and the progress events. */
export interface JobTests {
  report: TestsReport | undefined;
  environment: EnvironmentReport | undefined;
  events: ProgressEvent[];
  /** Milliseconds from the start until the workbench was open and the first test run began. */
  readyMs: number;
}

/**
 * Runs a job's test stage on `root` as the pipeline does (startTestBench with a real StageContext): the workbench opened
 * in the real sandbox with the shelf, the tests run on the untouched checkout, and everything closed.
 */
export async function runJobTests(input: {
  root: string;
  config: Record<string, unknown>;
  sandbox: Sandbox;
  shelf: EnvironmentShelf;
  scratchDir: string;
  extra?: Partial<Extract<CommandPolicy, { allowed: true }>>;
}): Promise<JobTests> {
  const events: ProgressEvent[] = [];
  const started = performance.now();
  let readyMs = 0;
  const commands: CommandPolicy = {
    allowed: true,
    sandbox: input.sandbox,
    scratchDir: input.scratchDir,
    environments: input.shelf,
    scope: { repo: "octo/demo", installationId: 7 },
    ...input.extra,
  };
  const ctx = {
    root: input.root,
    repoId: "octo/demo",
    config: parseConfig(input.config),
    llm: null as never,
    now: Date.now,
    onProgress: (event: ProgressEvent) => {
      if (event.stage === "tests" && event.tests.environment && !event.tests.before && readyMs === 0) readyMs = performance.now() - started;
      events.push(event);
    },
    commands,
  } as StageContext;
  const testing = startTestBench(ctx);
  try {
    const ready = await testing.ready;
    return { report: ready?.report, environment: await testing.environment(), events, readyMs };
  } finally {
    await testing.close();
  }
}

/** Commits the files of `root` with the real git, as a job's checkout is. */
export function commitAll(root: string, message: string): void {
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args], { cwd: root, stdio: "pipe" });
  if (!fs.existsSync(path.join(root, ".git"))) git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", message, "--allow-empty");
}
