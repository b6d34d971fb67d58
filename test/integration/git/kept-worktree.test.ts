import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withShallowClone, type GitRemote } from "../../../src/git/clone-repository.js";
import { gitBlobId } from "../../../src/git/git-object-id.js";
import { evict, folderOf, type ObjectCache } from "../../../src/git/object-cache.js";
import type { ClonedFile, CloneSink } from "../../../src/git/write-worktree.js";
import { createBareRepository, gitEnv, startGitServer, type GitServer } from "../../support/git-server.js";
import { treeSnapshot } from "../../support/tree-snapshot.js";

const token = "ghs_keptworktreetoken123456";
let root: string;
let server: GitServer;

const seed: Record<string, string> = {
  "README.md": "# tree\n",
  "run.sh": "#!/bin/sh\necho run\n",
  ...Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`pkg${i % 4}/mod${i}.py`, `def f${i}():\n    return ${i}\n`])),
  "docs/old/guide.md": "old guide\n",
  "data/table": "a file that becomes a folder\n",
};

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-kept-tree-"));
  server = await startGitServer(root, { token });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

let repos = 0;
function fixture(): { name: string; remote: GitRemote; cache: ObjectCache; parentDir: string } {
  const name = `octo/tree${++repos}`;
  createBareRepository(root, name, seed);
  const parentDir = path.join(root, `work${repos}`);
  return {
    name,
    remote: { url: `${server.url}/${name}.git`, token },
    cache: { dir: path.join(root, `cache${repos}`), maxBytes: 2 ** 30, maxPacks: 16 },
    parentDir,
  };
}

/** A commit on main made by the real git in a work clone: `change` runs there, then everything is committed. */
function commit(name: string, change: (work: string, git: (...args: string[]) => string) => void): string {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-kept-commit-"));
  try {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: work, env: gitEnv(), encoding: "utf8", stdio: "pipe" }).trim();
    execFileSync("git", ["clone", "-q", path.join(root, `${name}.git`), work], { env: gitEnv(), stdio: "pipe" });
    change(work, git);
    git("add", "-A");
    git("commit", "-q", "-m", "change");
    git("push", "-q", "origin", "HEAD:refs/heads/main");
    return git("rev-parse", "HEAD");
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The branch's tree as the real git checks it out. */
function gitTree(name: string): Record<string, string> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-kept-native-"));
  try {
    execFileSync("git", ["clone", "-q", "--depth", "1", `file://${path.join(root, `${name}.git`)}`, work], { env: gitEnv(), stdio: "pipe" });
    return treeSnapshot(work);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Every name under `dir` (but `.git`), as the bytes the file system holds. */
function rawNames(dir: Buffer | string): Buffer[] {
  const found: Buffer[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, encoding: "buffer" })) {
    if (entry.name.toString() === ".git") continue;
    found.push(entry.name);
    if (entry.isDirectory()) found.push(...rawNames(Buffer.concat([Buffer.from(dir), Buffer.from("/"), entry.name])));
  }
  return found;
}

/** A sink that keeps what the clone hands it. */
function recordingSink(): CloneSink & { files: ClonedFile[]; folders: string[] } {
  const sink = {
    files: [] as ClonedFile[],
    folders: [] as string[],
    start: () => void (sink.files = []),
    add: async (files: ClonedFile[]) => void sink.files.push(...files),
    done: (folders: string[]) => void (sink.folders = folders),
  };
  return sink;
}

const keptTree = (cache: ObjectCache, url: string) => path.join(folderOf(cache, url), "worktree");

describe("the work tree kept for a repository's next job", () => {
  it("is taken by the next clone, which writes only what the new commit changed and ends with git's tree exactly", async () => {
    const { name, remote, cache, parentDir } = fixture();
    let firstDir = "";
    let unchanged = 0;
    await withShallowClone(
      remote,
      "main",
      async ({ dir }) => {
        firstDir = dir;
        unchanged = fs.statSync(path.join(dir, "pkg1/mod5.py")).ino;
      },
      { objects: cache, parentDir },
    );
    expect(fs.existsSync(firstDir)).toBe(false);
    expect(fs.existsSync(keptTree(cache, remote.url))).toBe(true);
    expect(fs.statSync(path.dirname(keptTree(cache, remote.url))).mode & 0o077).toBe(0);

    // Every kind of change a commit makes to a tree: a blob, a mode, a link, files and folders gone and new, a file
    // that becomes a folder and a folder that becomes a file.
    const head = commit(name, (work, git) => {
      fs.writeFileSync(path.join(work, "pkg1/mod1.py"), "def f1():\n    return 100\n");
      fs.chmodSync(path.join(work, "run.sh"), 0o644);
      fs.chmodSync(path.join(work, "pkg3/mod3.py"), 0o755);
      fs.symlinkSync("pkg0/mod0.py", path.join(work, "latest.py"));
      git("rm", "-q", "-r", "docs/old", "pkg0/mod4.py");
      fs.mkdirSync(path.join(work, "docs"));
      fs.writeFileSync(path.join(work, "docs/new.md"), "new guide\n");
      git("rm", "-q", "data/table");
      fs.mkdirSync(path.join(work, "data/table"), { recursive: true });
      fs.writeFileSync(path.join(work, "data/table/rows.csv"), "1,2\n");
      git("rm", "-q", "-r", "pkg2");
      fs.writeFileSync(path.join(work, "pkg2"), "now a file\n");
    });
    const sink = recordingSink();
    const second = await withShallowClone(
      remote,
      "main",
      async (checkout) => ({ tree: treeSnapshot(checkout.dir), head: checkout.head, unchanged: fs.statSync(path.join(checkout.dir, "pkg1/mod5.py")).ino }),
      { objects: cache, parentDir, sink },
    );
    expect(second.head).toBe(head);
    expect(second.tree).toEqual(gitTree(name));
    // Handed over as the clone's writer hands them: every regular file of the commit, with its blob and bytes.
    const wanted = Object.entries(second.tree).filter(([, what]) => what.startsWith("file "));
    expect(sink.files.map((f) => f.path).sort()).toEqual(wanted.map(([rel]) => rel).sort());
    for (const file of sink.files) expect(gitBlobId(file.bytes), file.path).toBe(file.oid);
    expect(sink.folders).toContain("data/table");
    expect(sink.folders).not.toContain("docs/old");
    // The kept tree was the one moved in: a file the commit did not change is the very file the first clone wrote.
    expect(second.unchanged).toBe(unchanged);
    expect(fs.existsSync(keptTree(cache, remote.url))).toBe(true);
  });

  it("goes back as the commit it was checked out at, whatever the job did to it, and nothing of that reaches the next job", async () => {
    const { name, remote, cache, parentDir } = fixture();
    const outside = fs.mkdtempSync(path.join(root, "outside-"));
    fs.writeFileSync(path.join(outside, "secret.txt"), "not the repository's\n");
    await withShallowClone(
      remote,
      "main",
      async ({ dir }) => {
        // The job's edits, its leftovers, and what a hostile hand could leave: a link where a folder was, a link where
        // a file was, a hard link, a fifo, a changed mode.
        fs.writeFileSync(path.join(dir, "pkg1/mod1.py"), "edited by the job\n");
        fs.writeFileSync(path.join(dir, "new_file.py"), "a new file\n");
        fs.mkdirSync(path.join(dir, "pkg0/__pycache__"));
        fs.writeFileSync(path.join(dir, "pkg0/__pycache__/mod0.pyc"), "bytecode");
        fs.rmSync(path.join(dir, "pkg3"), { recursive: true });
        fs.symlinkSync(outside, path.join(dir, "pkg3"));
        fs.rmSync(path.join(dir, "README.md"));
        fs.symlinkSync(path.join(outside, "secret.txt"), path.join(dir, "README.md"));
        fs.rmSync(path.join(dir, "pkg2/mod2.py"));
        fs.linkSync(path.join(outside, "secret.txt"), path.join(dir, "pkg2/mod2.py"));
        execFileSync("mkfifo", [path.join(dir, "pkg1/pipe")]);
        fs.chmodSync(path.join(dir, "run.sh"), 0o644);
        fs.rmSync(path.join(dir, "docs"), { recursive: true });
      },
      { objects: cache, parentDir },
    );
    expect(fs.existsSync(keptTree(cache, remote.url))).toBe(true);
    expect(fs.readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("not the repository's\n");
    expect(fs.readdirSync(outside)).toEqual(["secret.txt"]);
    // Taken again, with no new commit between: git's tree exactly.
    const tree = await withShallowClone(remote, "main", async ({ dir }) => treeSnapshot(dir), { objects: cache, parentDir });
    expect(tree).toEqual(gitTree(name));
    expect(fs.readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("not the repository's\n");
  });

  it("goes back without what a name that is not UTF-8 holds, with the clone's modes, and as a folder only its user may enter", async () => {
    const { name, remote, cache, parentDir } = fixture();
    await withShallowClone(
      remote,
      "main",
      async ({ dir }) => {
        const raw = (rel: string, tail: number) => Buffer.concat([Buffer.from(path.join(dir, rel)), Buffer.from([tail])]);
        fs.writeFileSync(raw("pkg0/stray", 0xff), "stray\n");
        fs.mkdirSync(raw("evil", 0xfe));
        fs.mkdirSync(Buffer.concat([raw("evil", 0xfe), Buffer.from("/.git")]));
        fs.symlinkSync("/etc", Buffer.concat([raw("evil", 0xfe), Buffer.from("/etc")]));
        // Names that read as the commit's once a leading byte-order mark is dropped.
        fs.writeFileSync(path.join(dir, "\uFEFFREADME.md"), "not the readme\n");
        fs.writeFileSync(path.join(dir, "\uFEFFnotwanted"), "stray\n");
        fs.mkdirSync(path.join(dir, "\uFEFFpkg0"));
        fs.writeFileSync(path.join(dir, "\uFEFFpkg0/mod0.py"), "stray\n");
        // Its bytes as the commit has them, with bits the clone never sets, or without those it does.
        fs.chmodSync(path.join(dir, "pkg1/mod1.py"), 0o4666);
        fs.chmodSync(path.join(dir, "pkg1/mod5.py"), 0o444);
        fs.chmodSync(path.join(dir, "pkg2"), 0o2777);
        fs.writeFileSync(path.join(dir, "pkg3/stray.py"), "stray\n");
        fs.chmodSync(path.join(dir, "pkg3"), 0o555);
        fs.chmodSync(dir, 0o777);
      },
      { objects: cache, parentDir },
    );
    expect(fs.existsSync(keptTree(cache, remote.url))).toBe(true);
    const seen = await withShallowClone(
      remote,
      "main",
      async ({ dir }) => ({
        tree: treeSnapshot(dir),
        names: rawNames(dir),
        root: fs.statSync(dir).mode & 0o777,
        file: fs.statSync(path.join(dir, "pkg1/mod1.py")).mode & 0o7777,
        readOnly: fs.statSync(path.join(dir, "pkg1/mod5.py")).mode & 0o7777,
        folder: fs.statSync(path.join(dir, "pkg2")).mode & 0o7777,
        closed: fs.statSync(path.join(dir, "pkg3")).mode & 0o7777,
      }),
      { objects: cache, parentDir },
    );
    expect(seen.tree).toEqual(gitTree(name));
    expect(seen.names.every((raw) => Buffer.from(raw.toString("utf8")).equals(raw))).toBe(true);
    expect(seen.root).toBe(0o700);
    expect(seen.file).toBe(0o644);
    expect(seen.readOnly).toBe(0o644);
    expect(seen.folder).toBe(0o755);
    expect(seen.closed).toBe(0o755);
  });

  it("is not used when it lost a file or a link while kept (a removal cut short): the next clone writes the tree afresh", async () => {
    const { name, remote, cache, parentDir } = fixture();
    commit(name, (work) => fs.symlinkSync("README.md", path.join(work, "READ-ME")));
    await withShallowClone(remote, "main", async () => {}, { objects: cache, parentDir });
    const kept = keptTree(cache, remote.url);
    fs.rmSync(path.join(kept, "pkg0/mod0.py"));
    fs.rmSync(path.join(kept, "READ-ME"));
    fs.writeFileSync(path.join(kept, "pkg1/mod1.py"), "not its blob\n");
    // A clone without a sink (a revision's) reads nothing for the index: the tree is checked all the same.
    const tree = await withShallowClone(remote, "main", async ({ dir }) => treeSnapshot(dir), { objects: cache, parentDir });
    expect(tree).toEqual(gitTree(name));
  });

  it("is not used when it holds an entry its commit does not, or a record of another form: the next clone writes the tree afresh", async () => {
    const { name, remote, cache, parentDir } = fixture();
    await withShallowClone(remote, "main", async () => {}, { objects: cache, parentDir });
    const kept = keptTree(cache, remote.url);
    fs.writeFileSync(path.join(kept, "stray.txt"), "stray\n");
    fs.writeFileSync(Buffer.concat([Buffer.from(path.join(kept, "pkg0/s")), Buffer.from([0xff])]), "stray\n");
    const sink = recordingSink();
    const tree = await withShallowClone(remote, "main", async ({ dir }) => ({ tree: treeSnapshot(dir), names: rawNames(dir).length }), {
      objects: cache,
      parentDir,
      sink,
    });
    expect(tree.tree).toEqual(gitTree(name));
    expect(tree.names).toBe(Object.keys(gitTree(name)).length);
    expect(sink.files.map((f) => f.path).sort()).toEqual(Object.keys(seed).sort());
    // A tree whose record has no form of this version's (as an earlier one wrote): not used either.
    const record = path.join(keptTree(cache, remote.url), ".git");
    const { commit } = JSON.parse(fs.readFileSync(record, "utf8")) as { commit: string };
    fs.writeFileSync(record, JSON.stringify({ commit }));
    // Dated long ago: a file of the tree taken would still be, one written afresh is not.
    const longAgo = new Date("2001-01-01T00:00:00Z");
    fs.utimesSync(path.join(keptTree(cache, remote.url), "pkg1/mod5.py"), longAgo, longAgo);
    const again = await withShallowClone(
      remote,
      "main",
      async ({ dir }) => ({ tree: treeSnapshot(dir), mtime: fs.statSync(path.join(dir, "pkg1/mod5.py")).mtimeMs }),
      {
        objects: cache,
        parentDir,
      },
    );
    expect(again.tree).toEqual(gitTree(name));
    expect(again.mtime).toBeGreaterThan(longAgo.getTime());
  });

  it("is evicted with its repository even without a record and holding a link to nothing", async () => {
    const { remote, cache, parentDir } = fixture();
    await withShallowClone(remote, "main", async () => {}, { objects: cache, parentDir });
    const kept = keptTree(cache, remote.url);
    fs.rmSync(path.join(kept, ".git"));
    fs.symlinkSync("/nowhere/at/all", path.join(kept, "dangling"));
    expect(evict({ ...cache, maxAgeMs: 1 }, Date.now() + 60_000)).toBe(1);
    expect(fs.existsSync(folderOf(cache, remote.url))).toBe(false);
    expect(fs.readdirSync(cache.dir)).toEqual([]);
  });

  it("serves one clone at a time: another at once writes its own, and one of the two goes back", async () => {
    const { name, remote, cache, parentDir } = fixture();
    await withShallowClone(remote, "main", async () => {}, { objects: cache, parentDir });
    commit(name, (work) => fs.writeFileSync(path.join(work, "pkg0/mod0.py"), "changed\n"));
    const trees = await Promise.all([0, 1].map(() => withShallowClone(remote, "main", async ({ dir }) => treeSnapshot(dir), { objects: cache, parentDir })));
    expect(trees[0]).toEqual(gitTree(name));
    expect(trees[1]).toEqual(gitTree(name));
    expect(fs.existsSync(keptTree(cache, remote.url))).toBe(true);
    // Nothing else is left in the work folder.
    expect(fs.readdirSync(parentDir)).toEqual([]);
  });

  it("is written afresh when the kept objects no longer hold its commit", async () => {
    const { name, remote, cache, parentDir } = fixture();
    await withShallowClone(remote, "main", async () => {}, { objects: cache, parentDir });
    // The objects start over from another clone's whole tree (here: removed, the tree left as it was).
    for (const entry of fs.readdirSync(folderOf(cache, remote.url)))
      if (entry !== "worktree") fs.rmSync(path.join(folderOf(cache, remote.url), entry), { recursive: true });
    commit(name, (work) => fs.writeFileSync(path.join(work, "pkg1/mod1.py"), "changed again\n"));
    const tree = await withShallowClone(remote, "main", async ({ dir }) => treeSnapshot(dir), { objects: cache, parentDir });
    expect(tree).toEqual(gitTree(name));
  });

  it("is not kept without an object cache, nor when it would take more than a quarter of the cache", async () => {
    const { remote, cache, parentDir } = fixture();
    await withShallowClone(remote, "main", async () => {}, { parentDir });
    expect(fs.existsSync(cache.dir)).toBe(false);
    expect(fs.readdirSync(parentDir)).toEqual([]);
    await withShallowClone(remote, "main", async () => {}, { objects: { ...cache, maxBytes: 2_000 }, parentDir });
    expect(fs.existsSync(keptTree(cache, remote.url))).toBe(false);
    expect(fs.readdirSync(parentDir)).toEqual([]);
  });
});
