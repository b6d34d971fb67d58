import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { openTestBench as openBench } from "../../../src/pipeline/tests/open-test-bench.js";
import { openWorkbench, type Workbench } from "../../../src/pipeline/tests/open-workbench.js";
import type { CommandPolicy, StageContext } from "../../../src/pipeline/types.js";
import { hostSandbox } from "../../../src/sandbox/host-sandbox.js";

let work: string;
let root: string;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-bench-"));
  root = path.join(work, "checkout");
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, "value.txt"), "1\n");
});
// The workbenches the tests opened, removed by disposeAll (and after each test in any case).
let workbenches: Workbench[] = [];
const disposeAll = () => {
  for (const workbench of workbenches) workbench.dispose();
  workbenches = [];
};
afterEach(() => {
  disposeAll();
  fs.rmSync(work, { recursive: true, force: true });
});
/** Opens the workbench the tests run in, then the bench on it, as the pipeline does. */
const openTestBench = async (ctx: StageContext) => {
  const workbench = await openWorkbench(ctx);
  if (workbench.ok) workbenches.push(workbench.workbench);
  return await openBench(ctx, workbench);
};

const allowed = (extra: Partial<Extract<CommandPolicy, { allowed: true }>> = {}): CommandPolicy => ({
  allowed: true,
  sandbox: hostSandbox({ PATH: process.env.PATH }, []),
  scratchDir: path.join(work, "tests"),
  ...extra,
});
const context = (config: Record<string, unknown>, commands?: CommandPolicy): StageContext =>
  ({ root, repoId: root, config: parseConfig(config), llm: null as never, now: Date.now, onProgress: () => {}, commands }) as StageContext;
// A "test suite" that passes while value.txt holds 1, and counts its runs in a file outside the copy.
const suiteIn = (dir: string) =>
  `echo run >> ${JSON.stringify(path.join(dir, "runs.log"))}; if [ "$(cat value.txt)" = 1 ]; then echo '# pass 1'; echo '# fail 0'; else echo 'not ok 1 - value is one'; echo '# pass 0'; echo '# fail 1'; exit 1; fi`;
let suite: string;
beforeEach(() => {
  suite = suiteIn(work);
});
const runs = () => fs.readFileSync(path.join(work, "runs.log"), "utf8").trim().split("\n").length;

describe("openTestBench", () => {
  it("runs once on the untouched copy, judges each set of changes once, and restores the copy after each run", async () => {
    const opened = (await openTestBench(context({ test_command: suite }, allowed())))!;
    const bench = opened.bench!;
    expect(opened.report).toEqual({
      command: suite,
      sandbox: { label: "uncontained", description: expect.stringContaining("without a sandbox") },
      before: expect.objectContaining({ outcome: "passed", counts: { passed: 1, failed: 0, skipped: 0 } }),
    });
    const broken = [{ path: "value.txt", after: "2\n", encoding: "utf-8" as const }];
    const first = await bench.check(broken);
    expect(first.breaks).toBe("the tests passed before this change and fail with it: `value is one`");
    expect(await bench.check([...broken])).toBe(first);
    expect(runs()).toBe(2);
    expect(fs.readFileSync(path.join(work, "tests", "repo", "value.txt"), "utf8")).toBe("1\n");
    expect(fs.readFileSync(path.join(root, "value.txt"), "utf8")).toBe("1\n");
    disposeAll();
    expect(fs.existsSync(path.join(work, "tests"))).toBe(false);
  });

  // Found in real CI logs and test output; none of them is a value the app was told to hide.
  const leaked = {
    awsSecret: "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8mVd3k2P",
    sshKey: [
      "-----BEGIN OPENSSH PRIVATE KEY-----",
      "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
      "QyNTUxOQAAACBVdGhpcyBpcyBub3QgYSByZWFsIGtleSwgYnV0IGl0IGlzIHNoYXBlZCBs",
      "aWtlIG9uZSBmb3IgdGhlIHRlc3QAAACIAAAAAAAAAAAAAAAtzc2gtZWQyNTUxOQAAACBV",
      "-----END OPENSSH PRIVATE KEY-----",
    ].join("\n"),
    slack: "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    npm: "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    jwt: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    password: "password=hunter2-correct-horse",
  };

  it("keeps the credentials a test run prints out of what it reports: AWS pairs, private keys, Slack and npm tokens, JWTs, passwords", async () => {
    fs.writeFileSync(path.join(root, "leak.txt"), `${Object.values(leaked).join("\n")}\n`);
    const opened = (await openTestBench(context({ test_command: "cat leak.txt; echo 'not ok 1 - login'; exit 1" }, allowed())))!;
    const tail = opened.report.before!.tail;
    expect(tail).toContain("[redacted]");
    for (const secret of ["wJalrXUtnFEMI", "b3BlbnNzaC1rZXkt", leaked.slack, leaked.npm, leaked.jwt, "hunter2-correct-horse"])
      expect(tail).not.toContain(secret);
    disposeAll();
  });

  it("runs checks one at a time when tasks ask at once", async () => {
    const log = JSON.stringify(path.join(work, "order.log"));
    const bench = (await openTestBench(context({ test_command: `echo start >> ${log}; sleep 0.2; echo end >> ${log}; ${suite}` }, allowed())))!.bench!;
    const verdicts = await Promise.all([
      bench.check([{ path: "value.txt", after: "2\n", encoding: "utf-8" }]),
      bench.check([{ path: "value.txt", after: "1\n", encoding: "utf-8" }]),
    ]);
    expect(verdicts.map((v) => v.run.outcome)).toEqual(["failed", "passed"]);
    expect(fs.readFileSync(path.join(work, "order.log"), "utf8")).toBe("start\nend\n".repeat(3));
    disposeAll();
  });

  it("a copy that a test run broke makes every later check say the tests could not run, refusing nothing", async () => {
    fs.mkdirSync(path.join(root, "sub"));
    fs.writeFileSync(path.join(root, "sub", "x.txt"), "x\n");
    // Uncontained, a run can reach past its copy: here, given the change, it removes the set-up state the copy is put
    // back from.
    const command = "if grep -q y sub/x.txt; then rm -rf sub ../set-up; fi";
    const bench = (await openTestBench(context({ test_command: command }, allowed())))!.bench!;
    const verdict = await bench.check([{ path: "sub/x.txt", after: "y\n", encoding: "utf-8" }]);
    expect(verdict.run.outcome).toBe("error");
    expect(verdict.run.error).toMatch(/^the copy the commands run in could not be prepared \(ENOENT/);
    expect(verdict.breaks).toBeUndefined();
    expect((await bench.check([{ path: "value.txt", after: "2\n", encoding: "utf-8" }])).run.error).toBe(verdict.run.error);
    disposeAll();
  });

  it("is not used, and says why, where code may not run, when the setup fails, and when the first run does not finish", async () => {
    expect(await openTestBench(context({}, allowed()))).toBeNull();
    expect(await openTestBench(context({ test_command: suite }, { allowed: false, why: "not on this server" }))).toEqual({
      report: { command: suite, skipped: "not on this server" },
      bench: null,
    });
    const setup = (await openTestBench(context({ test_command: suite, setup_command: "echo 'token=ghp_abcdefghijklmnopqrstuvwxyz0123'; exit 2" }, allowed())))!;
    expect(setup.bench).toBeNull();
    expect(setup.report.skipped).toBe("the setup command failed (exit 2)");
    expect(setup.report.setupRun!.tail).toBe("token=[redacted]");
    const slow = (await openTestBench(context({ test_command: "sleep 30", test_timeout_seconds: 1 }, allowed())))!;
    expect(slow.report.skipped).toBe("the tests did not finish within 1 s and was stopped on the untouched checkout");
    disposeAll();
    expect(fs.existsSync(path.join(work, "tests"))).toBe(false);
  });
});
