import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openEnvironmentShelf, type EnvironmentShelf } from "../../../src/environment/index.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import { bubblewrapForTests } from "../../support/bubblewrap-for-tests.js";
import { pyproject, PYTHON_CONFIG, writePythonDemo } from "./demo-repositories.js";
import { commitAll, runJobTests } from "./run-job-tests.js";

// A Python repository with a src/ layout: its tests import the package only once the setup made a virtualenv and
// installed it there (editable, no registry), in the real bubblewrap; later jobs reuse what the first one kept.
let sandbox: Sandbox;
beforeAll(() => {
  sandbox = bubblewrapForTests();
});

let work: string;
let root: string;
let shelf: EnvironmentShelf;
let jobs = 0;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-python-env-"));
  root = path.join(work, "checkout");
  writePythonDemo(root);
  shelf = openEnvironmentShelf({ folder: path.join(work, "shelf"), maxBytes: 200 * 1024 * 1024 });
});
afterEach(async () => {
  await shelf.settled();
  fs.rmSync(work, { recursive: true, force: true });
});

function write(relative: string, text: string) {
  fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  fs.writeFileSync(path.join(root, relative), text);
}

const job = (extra: Record<string, unknown> = {}) =>
  runJobTests({ root, config: { ...PYTHON_CONFIG, ...extra }, sandbox, shelf, scratchDir: path.join(work, `job-${++jobs}`) });

describe("a Python repository's environment", () => {
  it("is built in the first job, reused by the second (setup not run), and built afresh when pyproject.toml changes", async () => {
    const first = await job();
    expect(first.report?.skipped).toBeUndefined();
    expect(first.report?.before).toMatchObject({ outcome: "passed", counts: { passed: 1, failed: 0 } });
    expect(first.report?.before?.tail).toContain("setup ran 1 time(s)");
    expect(first.environment).toMatchObject({ source: ".github/magis.yml setup_command", how: "built", steps: ["setup_command"], kept: { kept: true } });
    expect(shelf.list({ repo: "octo/demo" })).toHaveLength(1);

    // A newer checkout with the same key: the kept environment with the new files laid over it, no setup.
    write("src/magis_demo/__init__.py", "def double(x):\n    return x + x\n");
    write("tests/test_more.py", "from magis_demo import double\n\n\ndef test_zero():\n    assert double(0) == 0\n");
    commitAll(root, "more");
    const second = await job();
    expect(second.report?.before).toMatchObject({ outcome: "passed", counts: { passed: 2, failed: 0 } });
    expect(second.report?.before?.tail).toContain("setup ran 1 time(s)");
    expect(second.environment).toMatchObject({ how: "reused", steps: [], key: first.environment!.key });
    expect(second.environment!.kept).toBeUndefined();
    expect(shelf.stats()).toMatchObject({ hits: 1, misses: 1 });

    // A changed key file: a new key, built afresh.
    write("pyproject.toml", pyproject("0.2.0"));
    commitAll(root, "bump");
    const third = await job();
    expect(third.report?.before).toMatchObject({ outcome: "passed", counts: { passed: 2, failed: 0 } });
    expect(third.report?.before?.tail).toContain("setup ran 1 time(s)");
    expect(third.environment).toMatchObject({ how: "built", steps: ["setup_command"], kept: { kept: true } });
    expect(third.environment!.key).not.toBe(first.environment!.key);
    // Every job's copy is gone once it closed; only the shelf holds what was kept.
    expect(fs.readdirSync(work).filter((name) => name.startsWith("job-") && fs.readdirSync(path.join(work, name)).length > 0)).toEqual([]);
  }, 120_000);

  it("stays as it was set up when a job's tests alter it: the next job reuses it unchanged and passes", async () => {
    const first = await job();
    expect(first.environment).toMatchObject({ how: "built", kept: { kept: true } });
    const [record] = shelf.list({ repo: "octo/demo" });
    const kept = path.join(work, "shelf", "octo+demo", record!.key, "repo");
    const before = listTree(kept);
    // A test run that breaks the virtualenv, removes the package's source and plants a link out of the copy.
    const vandal = await job({
      test_command: `rm -rf .venv/lib src/magis_demo/__init__.py && echo broken > .venv/pyvenv.cfg && ln -s /etc .venv/etc && echo '# pass 1'`,
    });
    expect(vandal.environment).toMatchObject({ how: "reused" });
    expect(vandal.report?.before?.outcome).toBe("passed");
    expect(listTree(kept)).toEqual(before);
    const next = await job();
    expect(next.environment).toMatchObject({ how: "reused", steps: [] });
    expect(next.report?.before).toMatchObject({ outcome: "passed", counts: { passed: 1, failed: 0 } });
    expect(listTree(kept)).toEqual(before);
  }, 120_000);
});

/** Every entry under a folder with its kind, size and content hash: what a run must not change. */
function listTree(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).sort().map((relative) => {
    const at = path.join(dir, relative);
    const stat = fs.lstatSync(at);
    if (stat.isSymbolicLink()) return `${relative} -> ${fs.readlinkSync(at)}`;
    if (stat.isDirectory()) return `${relative}/`;
    return `${relative} ${stat.size} ${crypto.createHash("sha1").update(fs.readFileSync(at)).digest("hex")}`;
  });
}
