import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mountOverlay, openEnvironmentShelf } from "../../../src/environment/index.js";
import { removeLeftoverCheckouts } from "../../../src/git/remove-leftover-checkouts.js";
import { listMounts } from "../../../src/lib/list-mounts.js";
import { unmountUnder } from "../../../src/lib/unmount-under.js";
import { asOrdinaryUser } from "../../support/as-ordinary-user.js";
import { bubblewrapForTests } from "../../support/bubblewrap-for-tests.js";
import { runInProcessGroup } from "../../support/run-in-process-group.js";
import { runOverlayScenario, snapshot, type OverlayScenario } from "./overlay-scenario.js";

// A kept environment is the read-only lower layer of the job's copy: whatever a run writes, the kept copy stays as it
// was set up, and no mount outlives its job, nor a job killed midway. As root the kernel's overlay; as a user that is
// not root fuse-overlayfs (the scenario run again as `nobody`, whom fusermount3 can name).
const NOBODY = 65534;
const SCENARIO = path.join(import.meta.dirname, "run-overlay-scenario.ts");
const TSX = import.meta.resolve("tsx");

let work: string;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-overlay-test-"));
});
afterEach(() => {
  unmountUnder(work);
  fs.rmSync(work, { recursive: true, force: true });
});

const mountsUnder = (folder: string) => listMounts().filter((mount) => mount.target.startsWith(folder + path.sep));

/** What every overlay, whatever mounts it, must come to. */
function expectKeptAsSetUp(result: OverlayScenario, how: string): void {
  expect(result.first).toMatchObject({ how: "built", kept: { kept: true } });
  expect(result.second).toMatchObject({ how: "reused", steps: ["maintenance[1]"], laid: { how } });
  expect(result.hostileTail).toBe("library\nchanged");
  // The run's writes, removals, chmods and links are gone before the next run, which sees the setup's and the
  // maintenance's files.
  // The maintenance's removals hold for every run (a whiteout, an opaque folder) however a run undid them.
  expect(result.nextTail).toBe("library\nrun\nmaintained\nlib/lib.txt\ngone\nlib\nlink\nmaintained.txt\nrun.sh\nenv/gone:\nonly.txt\n\nenv/lib:\nlib.txt");
  expect(result.keptAfter).toEqual(result.keptBefore);
  expect(result.keptBefore.join("\n")).toContain("repo/env/run.sh file 755");
  expect(result.keptBefore.join("\n")).toContain("repo/env/old.txt file");
  // Ready, the set-up layer holds what was written over the kept copy (the checkout laid over it, the maintenance's
  // file), not a copy of every file the sandbox's user was given.
  expect(result.upperFiles).not.toContain("env/lib/lib.txt");
  expect(result.upperFiles).toContain("env/maintained.txt");
  // Of the checkout, only the file the newer commit changed is laid over the kept copy.
  expect(result.upperFiles).toContain("src/changed.txt");
  expect(result.upperFiles).not.toContain("src/app.txt");
  // Nor a copy of every folder: the kept folders are the sandbox user's already, so none is given to it again.
  expect(result.upperFolders).not.toContain("env/lib");
  // Each run wrote into an upper layer of its own, dropped after it: the one left is empty.
  expect(result.upperAfterRuns).toEqual([]);
  // The set-up state's view shows the kept copy with the maintenance's writes and removals, and takes no writes.
  expect(result.view).toEqual({
    env: ["gone", "lib", "link", "maintained.txt", "run.sh"],
    lib: ["lib.txt"],
    gone: ["only.txt"],
    changed: "second\n",
    writeRefused: "EROFS",
  });
  expect(result.mountsLeft).toEqual([]);
}

describe("a kept environment under an overlay", () => {
  it("as root: the kernel's overlay, the kept copy byte for byte as set up after a run that writes, deletes, chmods and links", async () => {
    expectKeptAsSetUp(await runOverlayScenario(work, bubblewrapForTests()), process.getuid?.() === 0 ? "overlay" : "fuse-overlayfs");
  }, 60_000);

  // As root only (setpriv), as the bot-files tests are.
  it("as a user that is not root: fuse-overlayfs, with the same guarantees", async () => {
    const user = asOrdinaryUser(NOBODY, [process.execPath, "--import", TSX, SCENARIO]);
    try {
      const ran = await runInProcessGroup(user.argv[0]!, user.argv.slice(1), { cwd: "/", env: { PATH: process.env.PATH }, timeoutMs: 120_000 });
      expect({ code: ran.code, out: ran.code === 0 ? "" : ran.out }).toEqual({ code: 0, out: "" });
      expectKeptAsSetUp(JSON.parse(ran.out.trim().split("\n").at(-1)!) as OverlayScenario, "fuse-overlayfs");
    } finally {
      user.dispose();
    }
  }, 120_000);

  it("copies instead, saying why, where no overlay can be mounted", () => {
    const lower = path.join(work, "kept,with-a-comma");
    fs.mkdirSync(lower);
    fs.writeFileSync(path.join(lower, "file.txt"), "kept\n");
    const target = path.join(work, "copy");
    const laid = mountOverlay(lower, target, { copy: (from, to) => fs.cpSync(from, to, { recursive: true }) });
    expect(laid).toMatchObject({ how: "copy", why: expect.stringContaining("comma") });
    fs.writeFileSync(path.join(target, "file.txt"), "changed\n");
    expect(fs.readFileSync(path.join(lower, "file.txt"), "utf8")).toBe("kept\n");
    expect(mountsUnder(work)).toEqual([]);
  });

  it("is unmounted by the shelf's sweep and by the leftover checkouts' once its process is gone", () => {
    const lower = path.join(work, "kept");
    fs.mkdirSync(lower);
    fs.writeFileSync(path.join(lower, "file.txt"), "kept\n");
    const before = snapshot(lower);
    const copy = () => {
      throw new Error("expected an overlay, not a copy");
    };
    // Two jobs' copies whose process was killed: the owner file names a process that has ended.
    const gone = spawnSync("true").pid;
    const targets = [path.join(work, "job-a", "repo"), path.join(work, "magis-clone-1-0-0-abcdef.tests", "repo")];
    for (const target of targets) {
      expect(mountOverlay(lower, target, { copy }).how).toBe("overlay");
      fs.writeFileSync(path.join(target, "file.txt"), "written by the job\n");
      fs.writeFileSync(path.join(`${target}.layers`, "owner"), `${gone} 0\n`);
    }
    // A live process's overlay is left alone.
    const live = path.join(work, "job-live", "repo");
    const alive = mountOverlay(lower, live, { copy });
    try {
      openEnvironmentShelf({ folder: path.join(work, "shelf"), maxBytes: 1024 });
      expect(mountsUnder(work).map((mount) => mount.target)).toEqual([live]);
      // A killed job's mount the sweep of checkouts finds (here, mounted again with no owner file) is detached first.
      expect(mountOverlay(lower, targets[1]!.replace("repo", "home"), { copy }).how).toBe("overlay");
      fs.rmSync(path.join(`${targets[1]!.replace("repo", "home")}.layers`, "owner"));
      const swept = removeLeftoverCheckouts(work, { isAlive: () => false, now: Date.now() + 48 * 3600 * 1000 });
      expect(swept.failed).toEqual([]);
      expect(swept.removed).toEqual([path.join(work, "magis-clone-1-0-0-abcdef.tests")]);
      expect(mountsUnder(work).map((mount) => mount.target)).toEqual([live]);
    } finally {
      alive.unmount();
    }
    expect(mountsUnder(work)).toEqual([]);
    expect(snapshot(lower)).toEqual(before);
  });
});
