import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inflateAt, MAX_OBJECT_BYTES } from "../../../src/git/pack/pack-entry.js";
import { compareCommits, readHistoryObjects } from "../../../src/git/pack/read-history-pack.js";
import { gitEnv } from "../../support/git-server.js";

let dir: string;
let pack: Buffer;
let head: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-pack-limits-"));
  const git = (args: string[], input?: string) => execFileSync("git", args, { cwd: dir, env: gitEnv(), input }).toString().trim();
  git(["init", "-q", "-b", "main"]);
  for (const [file, message] of [
    ["a.py", "Start"],
    ["pkg/b.py", "Add b"],
    ["pkg/c.py", "Add c"],
  ]) {
    fs.mkdirSync(path.dirname(path.join(dir, file!)), { recursive: true });
    fs.writeFileSync(path.join(dir, file!), `${message}\n`);
    git(["add", "-A"]);
    git(["commit", "-q", "-m", message!]);
  }
  head = git(["rev-parse", "HEAD"]);
  // Commits and trees, as a history fetch (blob:none) brings them.
  const objects = git(["rev-list", "--objects", "--filter=blob:none", "HEAD"])
    .split("\n")
    .map((line) => line.split(" ")[0])
    .join("\n");
  pack = execFileSync("git", ["pack-objects", "--stdout", "-q"], { cwd: dir, env: gitEnv(), input: `${objects}\n` });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("what a pack may inflate to", () => {
  it("refuses a stream that inflates past its entry's declared size, before inflating it whole", () => {
    const bomb = zlib.deflateSync(Buffer.alloc(50 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(100 * 1024);
    expect(() => inflateAt(bomb, 0, 1024)).toThrow("corrupt pack: the data at byte 0 inflates to more than the 1024 bytes its entry declares");
    expect(inflateAt(bomb, 0, 50 * 1024 * 1024).data.length).toBe(50 * 1024 * 1024);
  });

  it("refuses an entry that declares more than one object may have, and reads an empty one", () => {
    expect(() => inflateAt(zlib.deflateSync(Buffer.from("x")), 0, MAX_OBJECT_BYTES + 1)).toThrow(
      /declares \d+ bytes, more than the 512 MB one object may have/,
    );
    expect(inflateAt(zlib.deflateSync(Buffer.alloc(0)), 0, 0).data.length).toBe(0);
  });

  it("reads a history's commits, and leaves the history out when its trees inflate past the limit", async () => {
    const window = { months: 1200, maxCommits: 100 };
    const commits = await compareCommits(await readHistoryObjects(pack), { head, window });
    // Made within one second: their order is the ids'.
    expect(commits.map((c) => [c.message, c.files]).sort()).toEqual([
      ["Add b", ["pkg/b.py"]],
      ["Add c", ["pkg/c.py"]],
    ]);
    await expect(readHistoryObjects(pack, undefined, 100)).rejects.toThrow(
      "the history's trees inflate to more than 0 MB, more than a checkout keeps; the history was left out",
    );
  });
});
