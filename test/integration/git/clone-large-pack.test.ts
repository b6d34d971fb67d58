import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { withShallowClone } from "../../../src/git/clone-repository.js";
import { cachedObjects, type ObjectCache } from "../../../src/git/object-cache.js";
import { addCommit, createBareRepository, gitEnv, startGitServer } from "../../support/git-server.js";

// A pack many times the memory bound the clones below are given: incompressible files, and a long text file that a
// later commit changes, so that the next clone's thin pack is past the bound too and holds a delta on a kept blob.
const bound = 16 * 1024;
const random = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`data/f${i}.txt`, crypto.randomBytes(3_000).toString("hex")]));
const long = Array.from({ length: 2_000 }, (_, i) => `line ${i} of a long module\n`).join("");
const author = { name: "Ada", email: "ada@example.com" };
let root: string;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-large-pack-"));
  createBareRepository(root, "octo/large", { ...random, "module.py": long });
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** The checkout's files and the real git's verdict on its `.git`. */
function checkCheckout(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) expect(fs.readFileSync(path.join(dir, rel), "utf8")).toBe(text);
  // The kept pack holds the commit an earlier clone was at: dangling here, and left alone.
  expect(execFileSync("git", ["fsck", "--no-progress", "--strict", "--no-dangling"], { cwd: dir, env: gitEnv(), encoding: "utf8" })).toBe("");
  // The pack was renamed to its name: nothing is left under the name it arrived as.
  expect(fs.readdirSync(path.join(dir, ".git", "objects", "pack")).filter((name) => !/^pack-[0-9a-f]{40}\.(pack|idx)$/.test(name))).toEqual([]);
}

describe("a clone whose pack is larger than the memory bound", () => {
  it("writes the pack to a file in the checkout as it arrives, reads its objects from there, keeps it, and removes it with the checkout", async () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const server = await startGitServer(root, { holdTail: { bytes: 2048, until: () => released } });
    const parentDir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-large-parent-"));
    const cache: ObjectCache = { dir: path.join(root, "cache"), maxBytes: 2 ** 30, maxPacks: 16 };
    const remote = { url: `${server.url}/octo/large.git`, token: "unused" };
    try {
      const cloned = withShallowClone(
        remote,
        "main",
        async (checkout) => {
          checkCheckout(checkout.dir, { ...random, "module.py": long });
          const readme = checkout.fileEntries(["module.py"]).get("module.py")!;
          expect(checkout.readBlob(readme.oid).toString("utf8")).toBe(long);
        },
        { parentDir, packMemoryBytes: bound, objects: cache },
      );
      // While the pack's end is held, what came of it is in its file in the checkout, far past the bound.
      const incoming = () => {
        const [checkout] = fs.readdirSync(parentDir);
        const file = checkout && path.join(parentDir, checkout, ".git", "objects", "pack", "tmp_pack_incoming");
        return file && fs.existsSync(file) ? fs.statSync(file).size : 0;
      };
      await vi.waitFor(() => expect(incoming()).toBeGreaterThan(4 * bound), { timeout: 10_000, interval: 20 });
      release();
      await cloned;
      expect(fs.readdirSync(parentDir)).toEqual([]);
      expect(cachedObjects(cache, remote.url)?.packs).toHaveLength(1);

      // The next clone's thin pack, past the bound too, is made whole in its file from the kept pack.
      const changed = `${long}# changed\n`;
      const more = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`data/g${i}.txt`, crypto.randomBytes(3_000).toString("hex")]));
      addCommit(root, "octo/large", { branch: "main", files: { "module.py": changed, ...more }, message: "Change", author });
      await withShallowClone(remote, "main", async ({ dir }) => checkCheckout(dir, { ...random, ...more, "module.py": changed }), {
        parentDir,
        packMemoryBytes: bound,
        objects: cache,
      });
      expect(cachedObjects(cache, remote.url)?.packs).toHaveLength(2);
      expect(fs.readdirSync(parentDir)).toEqual([]);
    } finally {
      release();
      await server.close();
      fs.rmSync(parentDir, { recursive: true, force: true });
    }
  });
});
