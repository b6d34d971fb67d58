import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ProbotOctokit } from "probot";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../../src/backends/sqlite/database.js";
import { SqliteBackend } from "../../../src/backends/sqlite/sqlite-backend.js";
import type { Octokit } from "../../../src/github/types.js";
import type { NewTrigger } from "../../../src/store/triggers.js";
import type { DeskEvent } from "../../../src/triggers/desk/desk-options.js";
import { TriggerDesk } from "../../../src/triggers/trigger-desk.js";
import type { TriggerRule } from "../../../src/triggers/trigger-rule.js";
import { REJECTED, TriggerSpool } from "../../../src/triggers/trigger-spool.js";
import { labeledDelivery } from "../../support/labeled-delivery.js";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-spool-entries-"));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const octokit = new ProbotOctokit() as unknown as Octokit;
// The uid of `nobody`: another local user.
const OTHER_UID = 65534;

/** Spools `trigger` in `dir` as the desk would, and gives the file it wrote. */
function spooled(dir: string, trigger: NewTrigger): string {
  const names = () => (fs.existsSync(dir) ? fs.readdirSync(dir) : []);
  const before = new Set(names());
  new TriggerSpool(dir).add(trigger);
  const name = names().find((file) => !before.has(file));
  expect(name, "the spool should have kept the delivery").toBeDefined();
  return path.join(dir, name!);
}

/** A desk on a real SQLite store whose spool is `dir`, its rule noting what it decides, its log and events kept. */
async function deskOn(dir: string) {
  const root = tempDir();
  const backend = new SqliteBackend(openDatabase(path.join(root, "magis.db")));
  cleanups.push(() => backend.close());
  const warnings: string[] = [];
  const log = { info: () => {}, warn: (obj: object, msg: string) => void warnings.push(`${msg} ${JSON.stringify(obj)}`) };
  await backend.migrate({ ...log, error: log.warn });
  const decided: string[] = [];
  const events: DeskEvent[] = [];
  const rule: TriggerRule<"issues.labeled"> = {
    event: "issues.labeled",
    wants: () => true,
    decide: async (context) => (decided.push(context.id), { outcome: "ignored", detail: "seen" }),
  };
  const spool = new TriggerSpool(dir);
  const desk = new TriggerDesk(backend.store.triggers, [rule], {
    auth: async () => octokit,
    log,
    spool,
    onEvent: (event) => events.push(event),
    timing: { replayMs: 50, retryFirstMs: 50 },
  });
  cleanups.push(() => desk.stop());
  return { desk, spool, decided, events, warnings, triggers: backend.store.triggers };
}

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const rejected = (dir: string) => fs.readdirSync(path.join(dir, REJECTED)).map((name) => name.replace(/^\d+-/, ""));

describe("the spool replays only what the bot itself spooled", () => {
  // Seen: a trigger file another local user wrote into the spool folder was queued as job #1 and ran on its issue text.
  it("sets aside a file of another user instead of replaying it, and replays the bot's own", async () => {
    const dir = path.join(tempDir(), "spool");
    const theirs = spooled(dir, labeledDelivery("d-theirs", 1));
    fs.chownSync(theirs, OTHER_UID, OTHER_UID);
    spooled(dir, labeledDelivery("d-mine", 2));
    const { desk, spool, decided, events, warnings, triggers } = await deskOn(dir);
    await desk.start();
    await until(() => spool.depth === 0, "the spool to be replayed");
    await desk.settled();
    expect(decided).toEqual(["d-mine"]);
    expect(await triggers.get("d-theirs")).toBeNull();
    expect(events).toEqual(["set_aside", "replayed"]);
    expect(rejected(dir)).toEqual([path.basename(theirs)]);
    expect(warnings).toEqual([expect.stringContaining(`belongs to uid ${OTHER_UID}, not to the bot's user (uid ${process.getuid!()})`)]);
  });

  // Seen: a first file holding `null` stopped every file after it from being replayed, with nothing logged.
  it("sets aside null, a torn write and a record of the wrong shape, each logged and counted, and replays the files after them", async () => {
    const dir = path.join(tempDir(), "spool");
    fs.mkdirSync(dir, { mode: 0o700 });
    const bad = { "000000000000001-null.json": "null", "000000000000002-torn.json": '{"delivery":"d-', "000000000000003-shape.json": '{"delivery":5}' };
    for (const [name, text] of Object.entries(bad)) fs.writeFileSync(path.join(dir, name), text, { mode: 0o600 });
    spooled(dir, labeledDelivery("d-after-1", 10));
    spooled(dir, labeledDelivery("d-after-2", 11, 2));
    const { desk, spool, decided, events, warnings, triggers } = await deskOn(dir);
    await desk.start();
    await until(() => spool.depth === 0, "the spool to be replayed");
    await desk.settled();
    expect(decided.sort()).toEqual(["d-after-1", "d-after-2"]);
    expect(await triggers.get("d-after-2")).toMatchObject({ outcome: "ignored", detail: "seen" });
    expect(events).toEqual(["set_aside", "set_aside", "set_aside", "replayed", "replayed"]);
    expect(rejected(dir).sort()).toEqual(Object.keys(bad));
    expect(warnings).toEqual([
      expect.stringMatching(/null\.json.*it is not a spooled delivery \(the whole record: /),
      expect.stringMatching(/torn\.json.*it is not JSON/),
      expect.stringMatching(/shape\.json.*it is not a spooled delivery \(delivery: /),
    ]);
  });

  it("does not follow a link in the spool, nor move what it points at", async () => {
    const root = tempDir();
    const outside = spooled(path.join(root, "elsewhere"), labeledDelivery("d-linked", 1));
    const dir = path.join(root, "spool");
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.symlinkSync(outside, path.join(dir, "000000000000001-link.json"));
    spooled(dir, labeledDelivery("d-mine", 2));
    const { desk, spool, decided, warnings, triggers } = await deskOn(dir);
    await desk.start();
    await until(() => spool.depth === 0, "the spool to be replayed");
    await desk.settled();
    expect(decided).toEqual(["d-mine"]);
    expect(await triggers.get("d-linked")).toBeNull();
    expect(fs.existsSync(outside)).toBe(true);
    expect(rejected(dir)).toEqual(["000000000000001-link.json"]);
    expect(warnings).toEqual([expect.stringContaining('"why":"it is a link"')]);
  });

  it("sets aside a FIFO, a folder and a file too large without reading them", async () => {
    const dir = path.join(tempDir(), "spool");
    fs.mkdirSync(dir, { mode: 0o700 });
    execFileSync("mkfifo", [path.join(dir, "000000000000001-fifo.json")]);
    fs.mkdirSync(path.join(dir, "000000000000002-folder.json"));
    const spool = new TriggerSpool(dir, { maxFileBytes: 100 });
    fs.writeFileSync(path.join(dir, "000000000000003-large.json"), JSON.stringify(labeledDelivery("d-large", 3)), { mode: 0o600 });
    expect(spool.files().map((file) => spool.read(file))).toEqual([
      { file: path.join(dir, "000000000000001-fifo.json"), setAside: "it is not a regular file (a FIFO)" },
      { file: path.join(dir, "000000000000002-folder.json"), setAside: "it is not a regular file (a folder)" },
      { file: path.join(dir, "000000000000003-large.json"), setAside: expect.stringMatching(/^it holds \d+ bytes, more than the 100 a delivery may$/) },
    ]);
    expect(spool.depth).toBe(0);
  });

  it("takes a file another process replayed since the listing for gone: nothing set aside, nothing logged", () => {
    const dir = path.join(tempDir(), "spool");
    const file = spooled(dir, labeledDelivery("d-shared", 1));
    const spool = new TriggerSpool(dir);
    const listed = spool.files();
    // A process sharing the folder replays and removes it meanwhile.
    fs.rmSync(file);
    expect(listed.map((entry) => spool.read(entry))).toEqual([{ file, gone: true }]);
    expect(fs.existsSync(path.join(dir, REJECTED))).toBe(false);
  });

  it("does not move a file set aside through a rejected/ that is a link: it is renamed where it is", () => {
    const root = tempDir();
    const dir = path.join(root, "spool");
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.mkdirSync(path.join(root, "elsewhere"));
    fs.symlinkSync(path.join(root, "elsewhere"), path.join(dir, REJECTED));
    fs.writeFileSync(path.join(dir, "000000000000001-null.json"), "null", { mode: 0o600 });
    const spool = new TriggerSpool(dir);
    expect(spool.read(path.join(dir, "000000000000001-null.json"))).toMatchObject({
      setAside: expect.stringMatching(/; renamed 000000000000001-null\.json\.rejected$/),
    });
    expect(fs.readdirSync(path.join(root, "elsewhere"))).toEqual([]);
    expect(fs.existsSync(path.join(dir, "000000000000001-null.json.rejected"))).toBe(true);
    expect(spool.depth).toBe(0);
  });
});

describe("the spool folder", () => {
  // Seen: a 0777 spool folder, where any local user could plant a trigger.
  it("refuses to start on a folder others may write to, or that another user owns, saying what to do", async () => {
    const dir = path.join(tempDir(), "spool");
    spooled(dir, labeledDelivery("d-1", 1));
    fs.chmodSync(dir, 0o777);
    const open = await deskOn(dir);
    await expect(open.desk.start()).rejects.toThrow(
      `the spool folder ${dir} may be written by its group and every user (mode 0777): another local user could put files there that the bot would replay as GitHub's deliveries and run as jobs. Run \`chmod 700 ${dir}\`, or set MAGIS_SPOOL_DIR to a folder`,
    );
    fs.chmodSync(dir, 0o700);
    fs.chownSync(dir, OTHER_UID, OTHER_UID);
    const theirs = await deskOn(dir);
    await expect(theirs.desk.start()).rejects.toThrow(`the spool folder ${dir} belongs to uid ${OTHER_UID}, not to the bot's user`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(open.decided).toEqual([]);
    expect(theirs.decided).toEqual([]);
  });

  it("keeps nothing in a folder it may not use, and says why", () => {
    const dir = path.join(tempDir(), "spool");
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chmodSync(dir, 0o770);
    const spool = new TriggerSpool(dir);
    expect(spool.add(labeledDelivery("d-1", 1))).toMatch(/may be written by its group \(mode 0770\)/);
    expect(fs.readdirSync(dir)).toEqual([]);
    const link = path.join(path.dirname(dir), "link");
    fs.symlinkSync(dir, link);
    expect(new TriggerSpool(link).add(labeledDelivery("d-1", 1))).toMatch(/^the spool folder .*link is a link/);
  });
});
