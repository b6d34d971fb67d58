import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openEnvironmentShelf, type EnvironmentShelf } from "../../../src/environment/index.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import { bubblewrapForTests } from "../../support/bubblewrap-for-tests.js";
import { runJobTests } from "./run-job-tests.js";

// A declaration's steps in the real bubblewrap: in order, stopping at the first that fails, and a declaration that cannot
// be read named with what to do.
let sandbox: Sandbox;
beforeAll(() => {
  sandbox = bubblewrapForTests();
});

let work: string;
let root: string;
let shelf: EnvironmentShelf;
let jobs = 0;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-steps-"));
  root = path.join(work, "checkout");
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, "value.txt"), "1\n");
  shelf = openEnvironmentShelf({ folder: path.join(work, "shelf"), maxBytes: 10 * 1024 * 1024 });
});
afterEach(async () => {
  await shelf.settled();
  fs.rmSync(work, { recursive: true, force: true });
});

const job = (config: Record<string, unknown>) => runJobTests({ root, config, sandbox, shelf, scratchDir: path.join(work, `job-${++jobs}`) });

describe("the environment's steps", () => {
  it("run in order with the declaration's env under test_env, and stop at the first that fails, which the report names", async () => {
    const config = {
      environment: {
        setup: ['echo "one $LEVEL $ONLY_DECLARED" >> steps.log', "magis-absent-installer --all", "echo three >> steps.log"],
        env: { LEVEL: "declared", ONLY_DECLARED: "yes" },
      },
      test_env: { LEVEL: "test_env" },
      test_command: "cat steps.log",
    };
    const failed = await job(config);
    expect(failed.report?.skipped).toBe(
      "the setup step `setup[2]` failed (exit 127); the sandbox lacks the command `magis-absent-installer` (`/bin/sh: 1: magis-absent-installer: not found`)",
    );
    expect(failed.report?.setupRun?.exitCode).toBe(127);
    expect(failed.report?.setup).toBe("magis-absent-installer --all");
    expect(failed.environment).toMatchObject({ how: "built", steps: ["setup[1]", "setup[2]"], failedStep: { name: "setup[2]" } });
    expect(failed.environment!.failed).toBe(failed.report!.skipped);
    expect(failed.environment!.kept).toBeUndefined();
    expect(shelf.list()).toEqual([]);

    const passed = await job({ ...config, environment: { ...config.environment, setup: [config.environment.setup[0], config.environment.setup[2]] } });
    expect(passed.report?.before?.tail).toBe("one test_env yes\nthree");
    expect(passed.environment).toMatchObject({ steps: ["setup[1]", "setup[2]"], kept: { kept: true } });
  }, 60_000);

  it("do not run when the declaration cannot be read: the reason names the file and what to do", async () => {
    fs.mkdirSync(path.join(root, ".devcontainer"));
    fs.writeFileSync(path.join(root, ".devcontainer", "devcontainer.json"), '{ "postCreateCommand": "echo hi", }}');
    const opened = await job({ test_command: "true" });
    expect(opened.report?.skipped).toMatch(/^the repository's environment cannot be set up: \.devcontainer\/devcontainer\.json: /);
    expect(opened.report?.before).toBeUndefined();
  }, 60_000);

  it("keep nothing when there are none: only the declaration's variables", async () => {
    const config = { environment: { env: { GREETING: "hello" } }, test_command: 'echo "$GREETING"' };
    const first = await job(config);
    expect(first.report?.before?.tail).toBe("hello");
    expect(first.environment).toMatchObject({ how: "built", steps: [] });
    expect(first.environment!.kept).toBeUndefined();
    expect(shelf.list()).toEqual([]);
  }, 60_000);

  it("build afresh when a kept environment's maintenance fails, and keep that one in its place", async () => {
    // Maintenance fails while the setup's mark is the first job's: the kept environment cannot be brought up to date.
    const config = {
      environment: {
        setup: ["od -An -N8 -tx1 /dev/urandom | tr -d ' \\n' > built.txt"],
        maintenance: ['test "$(cat built.txt)" != "$(cat first.txt 2>/dev/null)"'],
      },
      test_command: "cat built.txt",
    };
    const first = await job(config);
    fs.writeFileSync(path.join(root, "first.txt"), `${first.report!.before!.tail}\n`);
    const second = await job(config);
    expect(second.environment).toMatchObject({
      how: "built",
      steps: ["setup[1]"],
      kept: { kept: true },
      maintenanceFailed: "the maintenance step `maintenance[1]` failed (exit 1)",
    });
    expect(second.report?.before?.tail).not.toBe(first.report!.before!.tail);
    expect(shelf.list()).toHaveLength(1);
    const third = await job(config);
    expect(third.environment).toMatchObject({ how: "reused", steps: ["maintenance[1]"] });
    expect(third.environment!.maintenanceFailed).toBeUndefined();
    expect(third.report?.before?.tail).toBe(second.report!.before!.tail);
  }, 60_000);
});
