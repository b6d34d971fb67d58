import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withShallowClone, type GitRemote } from "../../../src/git/clone-repository.js";
import { createBareRepository, startGitServer, type GitServer } from "../../support/git-server.js";

let root: string;
let server: GitServer;
let remote: GitRemote;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-clone-removal-"));
  const files = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`src/file-${i}.ts`, `export const n = ${i};\n`]));
  createBareRepository(root, "octo/removal", files);
  server = await startGitServer(root);
  remote = { url: `${server.url}/octo/removal.git`, token: "unused" };
});
afterAll(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe("the checkout's removal after the work", () => {
  it("removes the checkout without holding up the process: what the work started meanwhile (the status edit) runs", async () => {
    let dir = "";
    let ranDuringRemoval = false;
    await withShallowClone(remote, "main", async (checkout) => {
      dir = checkout.dir;
      expect(fs.readdirSync(path.join(dir, "src"))).toHaveLength(50);
      // The next turn of the event loop: it comes only if the removal lets it.
      setImmediate(() => (ranDuringRemoval = fs.existsSync(dir)));
    });
    expect(fs.existsSync(dir)).toBe(false);
    expect(ranDuringRemoval).toBe(true);
  });
});
