import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { openEnvironmentShelf, type EnvironmentShelf } from "../../../src/environment/index.js";
import { openWorkbench } from "../../../src/pipeline/tests/open-workbench.js";
import type { StageContext } from "../../../src/pipeline/types.js";
import { hostSandbox } from "../../../src/sandbox/index.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import { bubblewrapForTests } from "../../support/bubblewrap-for-tests.js";
import { runJobTests } from "./run-job-tests.js";

// A kept environment meets a newer checkout: the checkout's files are laid over what the setup left, never through it.
let sandbox: Sandbox;
beforeAll(() => {
  sandbox = bubblewrapForTests();
});

let work: string;
let root: string;
/** A host folder the setup's links point at: nothing may be written there. */
let outside: string;
let shelf: EnvironmentShelf;
let jobs = 0;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-reuse-"));
  root = path.join(work, "checkout");
  outside = path.join(work, "host");
  fs.mkdirSync(outside);
  fs.mkdirSync(path.join(root, "src"), { recursive: true });
  fs.writeFileSync(path.join(root, "src", "app.txt"), "one\n");
  fs.writeFileSync(path.join(root, "old.txt"), "old\n");
  shelf = openEnvironmentShelf({ folder: path.join(work, "shelf"), maxBytes: 10 * 1024 * 1024 });
});
afterEach(async () => {
  await shelf.settled();
  fs.rmSync(work, { recursive: true, force: true });
});

const context = (config: Record<string, unknown>): StageContext =>
  ({
    root,
    repoId: "octo/demo",
    config: parseConfig(config),
    llm: null as never,
    now: Date.now,
    onProgress: () => {},
    commands: { allowed: true, sandbox, scratchDir: path.join(work, `job-${++jobs}`), environments: shelf, scope: { repo: "octo/demo", installationId: 7 } },
  }) as StageContext;
const job = (config: Record<string, unknown>) => runJobTests({ root, config, sandbox, shelf, scratchDir: path.join(work, `job-${++jobs}`) });

describe("reusing a kept environment", () => {
  it("replaces the setup's links and folders at the checkout's paths, drops files the checkout no longer has, keeps the rest", async () => {
    // The setup leaves its own file, a link out where the next checkout has a folder, and a folder where it has a file.
    const setup = `echo made > built.txt && ln -s ${outside} notes && mkdir -p readme.md/inner && ln -s ${outside}/x src/new.txt`;
    const show = "for f in built.txt notes/a.txt readme.md src/app.txt src/new.txt old.txt; do echo \"$f: $(cat $f 2>&1)\"; done; echo '# pass 1'";
    const first = await job({ setup_command: setup, test_command: show });
    expect(first.environment).toMatchObject({ how: "built", kept: { kept: true } });
    expect(first.report?.before?.tail).toContain("old.txt: old");

    fs.mkdirSync(path.join(root, "notes"));
    fs.writeFileSync(path.join(root, "notes", "a.txt"), "note\n");
    fs.writeFileSync(path.join(root, "readme.md"), "read me\n");
    fs.writeFileSync(path.join(root, "src", "app.txt"), "two\n");
    fs.writeFileSync(path.join(root, "src", "new.txt"), "new\n");
    fs.rmSync(path.join(root, "old.txt"));
    const second = await job({ setup_command: setup, test_command: show });
    expect(second.environment).toMatchObject({ how: "reused", steps: [] });
    const tail = second.report!.before!.tail;
    expect(tail).toContain("built.txt: made");
    expect(tail).toContain("notes/a.txt: note");
    expect(tail).toContain("readme.md: read me");
    expect(tail).toContain("src/app.txt: two");
    expect(tail).toContain("src/new.txt: new");
    expect(tail).toMatch(/old\.txt: .*No such file/);
    expect(fs.readdirSync(outside)).toEqual([]);
  }, 60_000);

  it("builds afresh when the kept environment is taken away while it is copied (evicted by another worker)", async () => {
    const config = { setup_command: "echo made > built.txt", test_command: "cat built.txt; echo '# pass 1'" };
    expect((await job(config)).environment).toMatchObject({ how: "built", kept: { kept: true } });
    await shelf.settled();
    // Another worker's eviction: the folder goes right after this job found it.
    const find = shelf.find.bind(shelf);
    const vanishing = Object.assign(Object.create(shelf) as EnvironmentShelf, {
      find: (...args: Parameters<EnvironmentShelf["find"]>) => {
        const found = find(...args);
        if (found) fs.rmSync(found.repoDir, { recursive: true, force: true });
        return found;
      },
      release: shelf.release.bind(shelf),
      keep: shelf.keep.bind(shelf),
    });
    const second = await runJobTests({ root, config, sandbox, shelf: vanishing, scratchDir: path.join(work, "vanished") });
    expect(second.environment).toMatchObject({ how: "built", steps: ["setup_command"] });
    expect(second.report?.before?.outcome).toBe("passed");
  }, 60_000);

  it("keeps nothing without a sandbox: what the setup made names the job's own folder", async () => {
    const config = { setup_command: "pwd > where.txt", test_command: 'test "$(cat where.txt)" = "$PWD" && echo \'# pass 1\'' };
    const bare = hostSandbox(process.env, []);
    const first = await runJobTests({ root, config, sandbox: bare, shelf, scratchDir: path.join(work, "bare-1") });
    expect(first.environment).toMatchObject({ how: "built", kept: { kept: false, why: expect.stringContaining("not kept without a sandbox") } });
    const second = await runJobTests({ root, config, sandbox: bare, shelf, scratchDir: path.join(work, "bare-2") });
    expect(second.environment).toMatchObject({ how: "built" });
    expect(second.report?.before?.outcome).toBe("passed");
    expect(shelf.list()).toEqual([]);
  }, 60_000);

  it("keys the environment by the hosts its setup could reach", async () => {
    const config = { setup_command: "echo made > built.txt", test_command: "echo '# pass 1'" };
    expect((await job(config)).environment).toMatchObject({ how: "built" });
    await shelf.settled();
    const online: Sandbox = { ...sandbox, setupNetwork: true, setupAllowHosts: ["registry.npmjs.org"] };
    const withNetwork = await runJobTests({ root, config, sandbox: online, shelf, scratchDir: path.join(work, "online") });
    expect(withNetwork.environment).toMatchObject({ how: "built" });
    expect((await job(config)).environment).toMatchObject({ how: "reused" });
  }, 60_000);

  it("says why it was not kept when keeping is off, and builds again in the next job", async () => {
    const off = openEnvironmentShelf({ folder: path.join(work, "off"), maxBytes: 0 });
    const config = { setup_command: "echo made > built.txt", test_command: "echo '# pass 1'" };
    const first = await runJobTests({ root, config, sandbox, shelf: off, scratchDir: path.join(work, "off-1") });
    expect(first.environment).toMatchObject({ how: "built", kept: { kept: false, why: "keeping is off (MAGIS_ENV_CACHE_MB is 0)" } });
    const second = await runJobTests({ root, config, sandbox, shelf: off, scratchDir: path.join(work, "off-2") });
    expect(second.environment).toMatchObject({ how: "built", steps: ["setup_command"] });
  }, 60_000);

  it("puts back what maintenance left, not the kept file, and never writes the kept environment, run after run", async () => {
    const config = {
      environment: { setup: ["echo made > built.txt && echo made > other.txt"], maintenance: ["echo maintained > built.txt"] },
      test_command: "cat built.txt other.txt",
    };
    await job(config);
    const [record] = shelf.list();
    const kept = path.join(work, "shelf", "octo+demo", record!.key, "repo");
    const opened = await openWorkbench(context(config));
    if (!opened.ok) throw new Error(opened.why);
    try {
      expect(opened.workbench.environment).toMatchObject({ how: "reused", steps: ["maintenance[1]"] });
      // The set-up state shares the kept file no step changed (one copy fewer), and holds its own of the maintained one.
      const setUp = path.join(work, `job-${jobs}`, "set-up");
      expect(fs.statSync(path.join(setUp, "other.txt")).ino).toBe(fs.statSync(path.join(kept, "other.txt")).ino);
      expect(fs.statSync(path.join(setUp, "built.txt")).ino).not.toBe(fs.statSync(path.join(kept, "built.txt")).ino);
      const vandal = "echo changed > built.txt; echo changed > other.txt; cat built.txt other.txt";
      expect((await opened.workbench.run(vandal, [])).tail).toBe("changed\nchanged");
      expect((await opened.workbench.run("cat built.txt other.txt", [])).tail).toBe("maintained\nmade");
      expect((await opened.workbench.run("rm built.txt other.txt; true", [])).outcome).toBe("passed");
      expect((await opened.workbench.run("cat built.txt other.txt; echo again", [])).tail).toBe("maintained\nmade\nagain");
      expect(fs.readFileSync(path.join(kept, "built.txt"), "utf8")).toBe("made\n");
      expect(fs.readFileSync(path.join(kept, "other.txt"), "utf8")).toBe("made\n");
    } finally {
      opened.workbench.dispose();
    }
  }, 60_000);
});
