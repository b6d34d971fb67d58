import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { openWorkbench, type Workbench } from "../../../src/pipeline/tests/open-workbench.js";
import type { CommandPolicy, StageContext } from "../../../src/pipeline/types.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import { bubblewrapForTests } from "../../support/bubblewrap-for-tests.js";

// What the repository's commands leave in the copy, through the real bubblewrap and with the bot as it runs here (root in
// CI): links they plant are never written through, and no run sees what an earlier one changed.
let sandbox: Sandbox;
beforeAll(() => {
  sandbox = bubblewrapForTests();
});

let work: string;
let root: string;
/** A host folder outside the copy, the target the commands' links point at: nothing may be written there. */
let outside: string;
let workbenches: Workbench[] = [];
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-containment-"));
  root = path.join(work, "checkout");
  outside = path.join(work, "host");
  fs.mkdirSync(path.join(root, "src"), { recursive: true });
  fs.mkdirSync(path.join(root, "tests"));
  fs.mkdirSync(outside, { mode: 0o755 });
  fs.writeFileSync(path.join(root, "src", "app.py"), "VALUE = 1\n");
  fs.writeFileSync(path.join(root, "tests", "test_a.sh"), 'grep -q "VALUE = 1" src/app.py\n');
});
afterEach(() => {
  for (const workbench of workbenches) workbench.dispose();
  workbenches = [];
  fs.rmSync(work, { recursive: true, force: true });
});

const policy = (): CommandPolicy => ({ allowed: true, sandbox, scratchDir: path.join(work, "tests-copy") });
const context = (config: Record<string, unknown>): StageContext =>
  ({ root, repoId: root, config: parseConfig(config), llm: null as never, now: Date.now, onProgress: () => {}, commands: policy() }) as StageContext;
const open = async (config: Record<string, unknown>) => {
  const opened = await openWorkbench(context(config));
  if (!opened.ok) throw new Error(`no workbench: ${opened.why} ${opened.setupRun?.tail ?? ""}`);
  workbenches.push(opened.workbench);
  return opened.workbench;
};
const file = (at: string, after: string) => ({ path: at, after, encoding: "utf-8" as const });
/** Everything under the host folder: it must stay empty. */
const leftOutside = () => fs.readdirSync(outside, { recursive: true });

describe("the workbench writes nothing through links the repository's commands plant", () => {
  it("a test run that turns the changed file into a link to a host path: the next run and the restore write nothing there", async () => {
    const target = path.join(outside, "f");
    const workbench = await open({});
    const plant = `ln -sf ${target} src/app.py`;
    const first = await workbench.run(plant, [file("src/app.py", "VALUE = 2\n")]);
    expect(first.outcome).toBe("passed");
    const second = await workbench.run(`${plant}; cat src/app.py`, [file("src/app.py", "VALUE = 3\n")]);
    expect(second.outcome).toBe("failed");
    expect(leftOutside()).toEqual([]);
  });

  it("a setup command that plants the link: the file is written in the copy, and the host path stays untouched", async () => {
    const target = path.join(outside, "f");
    fs.writeFileSync(target, "the host's own\n");
    const workbench = await open({ test_command: "true", setup_command: `ln -sf ${target} src/app.py` });
    const run = await workbench.run("cat src/app.py", [file("src/app.py", "VALUE = 2\n")]);
    expect(run.outcome).toBe("passed");
    expect(run.tail).toBe("VALUE = 2");
    expect(fs.readFileSync(target, "utf8")).toBe("the host's own\n");
    // The next run sees the setup's state again: the link, which leads nowhere inside the sandbox.
    expect((await workbench.run("cat src/app.py", [])).outcome).toBe("failed");
    expect(fs.readdirSync(outside)).toEqual(["f"]);
  });

  it("the Reproducer's script path planted as a link to a host path by the setup: the script lands in the copy", async () => {
    const target = path.join(outside, "f");
    const workbench = await open({ test_command: "true", setup_command: `ln -sf ${target} tests/test_repro.py` });
    const run = await workbench.run("sh tests/test_repro.py", [file("tests/test_repro.py", "echo reproduced; exit 1\n")]);
    expect(run.tail).toBe("reproduced");
    expect(run.exitCode).toBe(1);
    expect(leftOutside()).toEqual([]);
  });

  it("a folder on the script's way planted as a link to a host folder: the run is refused, nothing is written there", async () => {
    const workbench = await open({ test_command: "true", setup_command: `ln -s ${outside} tests/deep` });
    const run = await workbench.run("true", [file("tests/deep/test_repro.py", "exit 1\n")]);
    expect(run.outcome).toBe("error");
    expect(run.error).toMatch(/leads outside the repository through a symbolic link|leads nowhere/);
    expect(leftOutside()).toEqual([]);
  });
});

describe("each run starts from the copy as the setup left it", () => {
  it("a reproduction that rewrites a test to `exit 0` does not make the next test run pass", async () => {
    const workbench = await open({ test_command: "true", setup_command: "echo built > build.txt" });
    const tests = "sh tests/test_a.sh";
    expect((await workbench.run(tests, [])).outcome).toBe("passed");
    const cheat = await workbench.run("echo 'exit 0' > tests/test_a.sh; rm build.txt; mkdir -p new/deep; touch new/deep/x; ln -s /etc extra", [
      file("tests/test_repro.py", "print(1)\n"),
    ]);
    expect(cheat.outcome).toBe("passed");
    const after = await workbench.run(`${tests}; echo "status $?"; cat build.txt; ls`, [file("src/app.py", "VALUE = 2\n")]);
    expect(after.tail).toBe("status 1\nbuilt\nbuild.txt\nsrc\ntests");
  });

  it("a file rewritten in place with its size and times put back is still found and put back", async () => {
    const workbench = await open({});
    const same = `printf 'VALUE = 9\\n' > src/app.py.new; touch -r src/app.py src/app.py.new; cat src/app.py.new > src/app.py; touch -r src/app.py.new src/app.py; rm src/app.py.new`;
    expect((await workbench.run(same, [])).outcome).toBe("passed");
    expect((await workbench.run("cat src/app.py", [])).tail).toBe("VALUE = 1");
  });

  it("a folder its run made unreadable, or replaced by a link, is put back", async () => {
    const workbench = await open({});
    expect((await workbench.run("chmod 000 tests; mv src src.old; ln -s /tmp src", [])).outcome).toBe("passed");
    const next = await workbench.run("ls -ld tests src | cut -c1; cat src/app.py; ls", []);
    expect(next.tail).toBe("d\nd\nVALUE = 1\nsrc\ntests");
  });
});
