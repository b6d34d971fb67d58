import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { mountOverlay, openEnvironmentShelf } from "../../../src/environment/index.js";
import type { EnvironmentShelf } from "../../../src/environment/types.js";
import { listMounts } from "../../../src/lib/list-mounts.js";
import { unmountUnder } from "../../../src/lib/unmount-under.js";
import { openWorkbench } from "../../../src/pipeline/tests/open-workbench.js";
import type { StageContext } from "../../../src/pipeline/types.js";
import { bubblewrapForTests } from "../../support/bubblewrap-for-tests.js";

// A job's layers over a kept environment: one that will not unmount leaves the others unmounted, the environment
// released and the rest of the copy removed, without throwing from dispose; a mount that fails falls back to a copy
// with the kept folder's own mode, and the report says which folder was copied.
const realPath = process.env.PATH ?? "";
let work: string;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-layers-test-"));
});
afterEach(() => {
  process.env.PATH = realPath;
  unmountUnder(work);
  fs.rmSync(work, { recursive: true, force: true });
});

/**
 * Puts a program named `name` first on PATH that fails (saying so) when its last argument ends with `suffix`, and
 * runs the real one otherwise.
 */
function failingFirst(names: string[], suffix: string): void {
  const bin = path.join(work, "bin");
  fs.mkdirSync(bin, { recursive: true });
  for (const name of names) {
    const real = realPath
      .split(path.delimiter)
      .map((dir) => path.join(dir, name))
      .find((at) => fs.existsSync(at));
    const script = `#!/bin/sh\nfor last; do :; done\ncase "$last" in *${suffix}) echo "refused by the test" >&2; exit 32;; esac\nexec ${real ?? "false"} "$@"\n`;
    fs.writeFileSync(path.join(bin, name), script, { mode: 0o755 });
  }
  process.env.PATH = `${bin}${path.delimiter}${realPath}`;
}

const mountsUnder = (folder: string) =>
  listMounts()
    .filter((mount) => mount.target.startsWith(folder + path.sep))
    .map((mount) => path.relative(folder, mount.target));

async function openJob(shelf: EnvironmentShelf, job: string, maintenance: string[] = []) {
  const root = path.join(work, "checkout");
  fs.mkdirSync(root, { recursive: true });
  fs.writeFileSync(path.join(root, "app.txt"), "app\n");
  const environment = { setup: ["mkdir -p env && echo library > env/lib.txt"], ...(maintenance.length > 0 ? { maintenance } : {}) };
  const config = parseConfig({ environment, test_command: "true" });
  const ctx = {
    root,
    repoId: "octo/demo",
    config,
    commands: { allowed: true, sandbox: bubblewrapForTests(), scratchDir: path.join(work, job), environments: shelf, scope: { repo: "octo/demo" } },
  } as unknown as StageContext;
  const opened = await openWorkbench(ctx);
  if (!opened.ok) throw new Error(`the workbench did not open: ${opened.why}`);
  return opened.workbench;
}

async function keptShelf(warnings: string[] = [], maintenance: string[] = []): Promise<EnvironmentShelf> {
  const shelf = openEnvironmentShelf({
    folder: path.join(work, "shelf"),
    maxBytes: 64 * 1024 * 1024,
    log: { info: () => undefined, warn: (_obj, msg) => void warnings.push(msg) },
  });
  const first = await openJob(shelf, "job-1", maintenance);
  expect(await first.settled()).toMatchObject({ how: "built", kept: { kept: true } });
  first.dispose();
  await shelf.settled();
  return shelf;
}

describe("a job's layers over a kept environment", () => {
  it("unmounts the home, releases the environment and removes the rest when the copy's layer will not unmount", async () => {
    const warnings: string[] = [];
    const shelf = await keptShelf(warnings);
    const second = await openJob(shelf, "job-2");
    expect(second.environment).toMatchObject({ how: "reused", laid: { how: process.getuid?.() === 0 ? "overlay" : "fuse-overlayfs" } });
    // The copy and the home, each over its set-up layer, and the read-only views of their set-up state.
    expect(mountsUnder(work).sort()).toEqual(["job-2/home", "job-2/repo", "job-2/set-up", "job-2/set-up-home"]);
    failingFirst(["umount", "fusermount3"], "/job-2/repo");
    expect(() => second.dispose()).not.toThrow();
    process.env.PATH = realPath;
    // The home's overlay is gone; the copy's stays, said, with its layers; the rest of the job's folder is removed.
    expect(mountsUnder(work)).toEqual(["job-2/repo"]);
    expect(fs.readdirSync(path.join(work, "job-2")).sort()).toEqual(["repo", "repo.layers"]);
    expect(warnings.join("\n")).toContain(`${path.join(work, "job-2", "repo")} (could not unmount the job's overlay`);
    // Released: clearing removes the environment at once.
    const [kept] = shelf.list();
    expect(shelf.remove({ repo: "octo/demo" })).toBe(1);
    await shelf.settled();
    expect(fs.existsSync(path.join(work, "shelf", "octo+demo", kept!.key))).toBe(false);
  }, 60_000);

  it("says that the home was copied when only its overlay could not be mounted", async () => {
    const shelf = await keptShelf();
    failingFirst(["mount", "fuse-overlayfs"], "/job-2/home");
    const second = await openJob(shelf, "job-2");
    process.env.PATH = realPath;
    try {
      expect(second.environment?.laid).toEqual({ how: "copy", why: expect.stringMatching(/^the home: .*refused by the test/) });
      expect(mountsUnder(work).sort()).toEqual(["job-2/repo", "job-2/set-up"]);
    } finally {
      second.dispose();
    }
    expect(mountsUnder(work)).toEqual([]);
    expect(fs.existsSync(path.join(work, "job-2"))).toBe(false);
  }, 60_000);

  it("gives every later run an error, leaves nothing mounted and disposes without throwing when the copy cannot be mounted again", async () => {
    const shelf = await keptShelf();
    const second = await openJob(shelf, "job-2");
    try {
      failingFirst(["mount", "fuse-overlayfs"], "/job-2/repo");
      // The run's copy could not be put back after it: neither it nor any later run can be trusted.
      const refused = { outcome: "error", error: expect.stringContaining("refused by the test") };
      expect(await second.run("echo written > env/lib.txt", [])).toMatchObject(refused);
      expect(await second.run("cat env/lib.txt", [])).toMatchObject(refused);
    } finally {
      process.env.PATH = realPath;
      expect(() => second.dispose()).not.toThrow();
    }
    expect(mountsUnder(work)).toEqual([]);
    expect(fs.existsSync(path.join(work, "job-2"))).toBe(false);
  }, 60_000);

  it("walks and keeps the set-up state of a kept environment copied whole, each run starting from it", async () => {
    const shelf = await keptShelf();
    failingFirst(["mount", "fuse-overlayfs"], "/job-2/repo");
    const second = await openJob(shelf, "job-2");
    process.env.PATH = realPath;
    try {
      expect(second.environment?.laid).toEqual({ how: "copy", why: expect.stringMatching(/^the copy: .*refused by the test/) });
      expect(await second.run("echo changed > env/lib.txt && rm app.txt && cat env/lib.txt", [])).toMatchObject({ outcome: "passed", tail: "changed" });
      expect(await second.run("cat env/lib.txt app.txt", [])).toMatchObject({ outcome: "passed", tail: "library\napp" });
    } finally {
      second.dispose();
    }
    expect(mountsUnder(work)).toEqual([]);
  }, 60_000);

  it("leaves out of the set-up state the pipes its maintenance made, one over a kept file included", async () => {
    const maintenance = ["mkfifo env/pipe && rm env/lib.txt && mkfifo env/lib.txt"];
    const shelf = await keptShelf([], maintenance);
    const second = await openJob(shelf, "job-2", maintenance);
    try {
      expect(second.environment).toMatchObject({ how: "reused", steps: ["maintenance[1]"] });
      expect(await second.run("ls -A env", [])).toMatchObject({ outcome: "passed", tail: "" });
      expect(fs.readdirSync(second.hostPath("/workspace/env")!)).toEqual([]);
    } finally {
      second.dispose();
    }
    expect(mountsUnder(work)).toEqual([]);
  }, 60_000);

  it("leaves out a pipe its maintenance made in a folder that replaced a kept file", async () => {
    const maintenance = ["rm env/lib.txt && mkdir env/lib.txt && mkfifo env/lib.txt/pipe"];
    const shelf = await keptShelf([], maintenance);
    const second = await openJob(shelf, "job-2", maintenance);
    try {
      expect(second.environment).toMatchObject({ how: "reused", steps: ["maintenance[1]"] });
      expect(await second.run("test -d env/lib.txt && ls -A env/lib.txt", [])).toMatchObject({ outcome: "passed", tail: "" });
      expect(fs.readdirSync(second.hostPath("/workspace/env/lib.txt")!)).toEqual([]);
    } finally {
      second.dispose();
    }
    expect(mountsUnder(work)).toEqual([]);
  }, 60_000);

  it("disposes without throwing, saying so, when the environment cleared meanwhile cannot be taken away on release", async () => {
    const warnings: string[] = [];
    const shelf = await keptShelf(warnings);
    const second = await openJob(shelf, "job-2");
    // Cleared while the job holds it: it goes once released, and here that rename fails.
    expect(shelf.remove({ repo: "octo/demo" })).toBe(1);
    const rename = fs.renameSync;
    const spy = vi.spyOn(fs, "renameSync").mockImplementation((from, to) => {
      if (String(to).includes(".removing-")) throw Object.assign(new Error(`EBUSY: resource busy, rename '${String(from)}'`), { code: "EBUSY" });
      rename(from, to);
    });
    try {
      expect(() => second.dispose()).not.toThrow();
    } finally {
      spy.mockRestore();
    }
    expect(warnings).toContainEqual(expect.stringMatching(/shelf\/octo\+demo\/[0-9a-f]+ \(EBUSY: resource busy/));
    expect(mountsUnder(work)).toEqual([]);
    expect(fs.existsSync(path.join(work, "job-2"))).toBe(false);
  }, 60_000);

  it("copies with the kept folder's mode when the mount fails after making the folder", () => {
    const lower = path.join(work, "kept");
    fs.mkdirSync(lower);
    fs.chmodSync(lower, 0o755);
    fs.writeFileSync(path.join(lower, "file.txt"), "kept\n");
    failingFirst(["mount", "fuse-overlayfs"], "/copy");
    const target = path.join(work, "copy");
    const laid = mountOverlay(lower, target, { copy: (from, to) => fs.cpSync(from, to, { recursive: true }), searchPath: process.env.PATH });
    expect(laid).toMatchObject({ how: "copy", why: expect.stringContaining("refused by the test") });
    expect(fs.statSync(target).mode & 0o7777).toBe(0o755);
    expect(fs.readFileSync(path.join(target, "file.txt"), "utf8")).toBe("kept\n");
    expect(fs.existsSync(`${target}.layers`)).toBe(false);
  });
});
