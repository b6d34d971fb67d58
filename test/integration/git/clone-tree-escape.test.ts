import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withShallowClone, type GitRemote } from "../../../src/git/clone-repository.js";
import { createBareRepository, gitEnv, startGitServer, type GitServer } from "../../support/git-server.js";

// Trees git's own tools never write, stored byte by byte in a repository the real git http-backend serves.
const token = "ghs_escape1234567890";
let root: string;
let outside: string;
let server: GitServer;
let repo = "";

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-escape-"));
  outside = fs.mkdtempSync(path.join(os.tmpdir(), "magis-outside-"));
  for (const name of ["twice", "bytes"]) createBareRepository(root, `octo/${name}`, { "README.md": "hello\n" });
  server = await startGitServer(root, { token });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

const bare = () => path.join(root, `octo/${repo}.git`);
const remote = (): GitRemote => ({ url: `${server.url}/octo/${repo}.git`, token });
const store = (type: string, bytes: Buffer) =>
  execFileSync("git", ["hash-object", "-w", "-t", type, "--literally", "--stdin"], { cwd: bare(), input: bytes, encoding: "utf8" }).trim();
/** A tree entry; a name given as bytes is stored as they are. */
const entry = (mode: string, name: string | Buffer, oid: string) =>
  Buffer.concat([Buffer.from(`${mode} `), Buffer.from(name), Buffer.from([0]), Buffer.from(oid, "hex")]);

/** A file outside the checkout, a link blob pointing at it, and the bytes a clone must never write there. */
function victim(name: string): { target: string; link: string; payload: string } {
  const target = path.join(outside, name);
  fs.writeFileSync(target, "untouched\n");
  return { target, link: store("blob", Buffer.from(target)), payload: store("blob", Buffer.from("written through the link\n")) };
}

/** Points branch `name` at a commit of the root tree `tree`. */
function branchOf(name: string, tree: string): void {
  const commit = execFileSync("git", ["commit-tree", tree, "-m", name], { cwd: bare(), env: gitEnv(), encoding: "utf8" }).trim();
  execFileSync("git", ["update-ref", `refs/heads/${name}`, commit], { cwd: bare() });
}

describe("withShallowClone on a tree that names one entry twice", () => {
  it("never writes through a link the same tree made: a link 'a' to a file outside, then a file 'a'", async () => {
    repo = "twice";
    const { target, link, payload } = victim("victim.txt");
    // Files between the two entries, so the link is made before the file's write starts.
    const filler = store("tree", Buffer.concat(Array.from({ length: 40 }, (_, i) => entry("100644", `f${String(i).padStart(2, "0")}`, payload))));
    const tree = store("tree", Buffer.concat([entry("120000", "a", link), entry("40000", "b", filler), entry("100644", "a", payload)]));
    branchOf("twice", tree);
    await withShallowClone(remote(), "twice", async () => undefined).catch(() => undefined);
    expect(fs.readFileSync(target, "utf8")).toBe("untouched\n");
  });

  it("never writes through a link whose name is another byte sequence that decodes to the same text (a tree git fsck --strict accepts)", async () => {
    repo = "bytes";
    const { target, link, payload } = victim("victim-bytes.txt");
    const filler = store("tree", entry("100644", "f", payload));
    // 0xc3 alone and 0xff are both invalid UTF-8 (each reads as U+FFFD); names starting 0xc3 0xa9 ('é') sort between them.
    const between = Array.from({ length: 40 }, (_, i) => entry("40000", `é${String(i).padStart(2, "0")}`, filler));
    const tree = store("tree", Buffer.concat([entry("120000", Buffer.from([0xc3]), link), ...between, entry("100644", Buffer.from([0xff]), payload)]));
    branchOf("bytes", tree);
    // The real git finds nothing wrong with this tree: sorted, no duplicate names, no '.git'.
    expect(execFileSync("git", ["fsck", "--strict", "--no-progress"], { cwd: bare(), encoding: "utf8" })).toBe("");
    await withShallowClone(remote(), "bytes", async () => undefined).catch(() => undefined);
    expect(fs.readFileSync(target, "utf8")).toBe("untouched\n");
  });
});
