import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { windowStart, type CommitRecord, type HistoryWindow } from "../../../src/git/commit-history.js";
import { withShallowClone, type GitRemote } from "../../../src/git/clone-repository.js";
import { recentHistory, type FetchedHistory } from "../../../src/git/fetch-recent-history.js";
import { gitHttpWithTimeout } from "../../../src/git/git-http-with-timeout.js";
import { fetchShallowPack } from "../../../src/git/pack/fetch-shallow-pack.js";
import { readLocalHistory } from "../../../src/git/read-local-history.js";
import { keptHistory } from "../../../src/git/kept-history.js";
import { cachedObjects, evict, forgetObjects, type ObjectCache } from "../../../src/git/object-cache.js";
import { gitEnv, startGitServer, type GitServer } from "../../support/git-server.js";

const token = "ghs_keptHistoryToken1234567";
const window: HistoryWindow = { months: 12, maxCommits: 5000 };
const DAY = 86_400;
const now = Math.floor(Date.now() / 1000);

let root: string;
let server: GitServer;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-kept-history-"));
  server = await startGitServer(root, { token });
});
afterAll(async () => {
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** A repository a test writes with the real git, commit by commit at the times given, pushed to a bare one the server serves. */
class Repository {
  readonly name: string;
  readonly remote: GitRemote;
  readonly cache: ObjectCache;
  private readonly work: string;
  private readonly bare: string;

  constructor(id: string) {
    this.name = `octo/${id}`;
    this.remote = { url: `${server.url}/${this.name}.git`, token };
    this.cache = { dir: path.join(root, `cache-${id}`), maxBytes: 2 ** 30, maxPacks: 16 };
    this.work = fs.mkdtempSync(path.join(root, `work-${id}-`));
    this.bare = path.join(root, `${this.name}.git`);
    this.git(["init", "-q", "-b", "main"]);
    this.commit("Initial commit", now - 3 * 365 * DAY, { "README.md": "hello\n", "src/core/model.py": "x = 0\n" });
    fs.mkdirSync(path.dirname(this.bare), { recursive: true });
    execFileSync("git", ["init", "-q", "--bare", "-b", "main", this.bare], { env: gitEnv(), stdio: "pipe" });
    execFileSync("git", ["config", "uploadpack.allowFilter", "true"], { cwd: this.bare, stdio: "pipe" });
    this.push();
  }

  git(args: string[], time?: number): string {
    const date = time === undefined ? {} : { GIT_AUTHOR_DATE: `${time} +0000`, GIT_COMMITTER_DATE: `${time} +0000` };
    return execFileSync("git", args, { cwd: this.work, env: { ...gitEnv(), ...date }, encoding: "utf8", stdio: "pipe" }).trim();
  }

  /** Commits `files` (path to content) on the branch checked out, at `time`; returns the commit. */
  commit(message: string, time: number, files: Record<string, string>): string {
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(this.work, rel)), { recursive: true });
      fs.writeFileSync(path.join(this.work, rel), text);
    }
    this.git(["add", "-A"]);
    this.git(["commit", "-q", "--allow-empty", "-m", message], time);
    return this.git(["rev-parse", "HEAD"]);
  }

  push(): void {
    this.git(["push", "-q", "--force", this.bare, "main:main"]);
  }

  /**
   * The history a job reads with its clock at `now`, with `cache` (or none): the advertisement read as a clone reads
   * it, then the history fetched as beside a clone.
   */
  async historyAt(cache: ObjectCache | undefined, now: number, maxBytes = 64 * 2 ** 20): Promise<FetchedHistory> {
    const history = recentHistory({ token, window, maxBytes, idleMs: 30_000, now, ...(cache && { kept: { cache, url: this.remote.url } }) });
    // The advertisement only: the clone's own pack request is never made.
    await fetchShallowPack(gitHttpWithTimeout(30_000), {
      url: this.remote.url,
      token,
      branch: "main",
      alongside: (advertised, head) => {
        history.start(advertised, head);
        throw new Error("advertised");
      },
    }).catch((error: Error) => {
      if (error.message !== "advertised") throw error;
    });
    return history.result;
  }

  /** What `git log` shows of the window at `now`, merges left out: every commit a history could hold. */
  async logAt(now: number): Promise<CommitRecord[]> {
    const start = windowStart(now, window);
    return (await readLocalHistory({ gitDir: this.bare }, { months: 60, maxCommits: 5000 })).filter((commit) => commit.time >= start);
  }

  /** The branch's history as a job reads it: a clone with `cache` (or none), and the history that comes with it. */
  async history(cache: ObjectCache | undefined, historyWindow = window): Promise<FetchedHistory> {
    const fetched = await withShallowClone(this.remote, "main", async (checkout) => checkout.history!, { history: historyWindow, objects: cache });
    expect(fetched.skipped).toBeUndefined();
    return fetched;
  }
}

/** A repository of one commit in the window, whose history a first job read whole and kept. */
async function keptOnce(id: string): Promise<Repository> {
  const repo = new Repository(id);
  repo.commit("Step", now - 10 * DAY, { "src/mod.py": "n = 1\n" });
  repo.push();
  await repo.history(repo.cache);
  return repo;
}

const historyPackRequests = () => server.requests.filter((r) => r.method === "POST" && r.path.endsWith("/git-upload-pack")).length;

/** The bytes of the files under a folder. */
function bytesIn(folder: string): number {
  return fs
    .readdirSync(folder, { withFileTypes: true, recursive: true })
    .reduce((sum, entry) => (entry.isFile() ? sum + fs.statSync(path.join(entry.parentPath, entry.name)).size : sum), 0);
}

/** How many objects each kept history pack holds, in the manifest's order. */
function keptPackSizes(repo: Repository): number[] {
  const kept = keptHistory(repo.cache, repo.remote.url);
  return kept ? kept.packs.map((pack) => fs.readFileSync(path.join(kept.folder, `${pack}.pack`)).readUInt32BE(8)) : [];
}

describe("a history kept between jobs", () => {
  it("fetches only the commits made since, and reads the same history as a whole fetch, side branches merged late included", async () => {
    const repo = new Repository("merges");
    for (let i = 0; i < 12; i++)
      repo.commit(`Change the model, step ${i}`, now - (300 - i * 10) * DAY, {
        [`src/part${i % 4}/mod${i}.py`]: `step = ${i}\n`,
        "src/core/model.py": `x = ${i}\n`,
      });
    const forkPoint = repo.git(["rev-parse", "HEAD"]);
    repo.commit("Touch the docs", now - 150 * DAY, { "docs/guide.md": "a guide\n" });
    repo.push();

    const first = await repo.history(repo.cache);
    expect(first.commits).toEqual((await repo.history(undefined)).commits);
    // The year's thirteen commits but its first, whose parent is older than the window.
    expect(first.commits).toHaveLength(12);
    expect(keptPackSizes(repo)).toHaveLength(1);

    // A branch made before the first job, from a commit that is not the head, merged after it: its commits are
    // older than the kept head, and their parent's trees are ones the server no longer sends.
    repo.git(["checkout", "-q", "-b", "side", forkPoint]);
    const sideCommit = repo.commit("Fix the parser on a side branch", now - 160 * DAY, {
      "src/parser/read.py": "def read(): pass\n",
      "src/part1/mod1.py": "step = 'side'\n",
    });
    repo.git(["checkout", "-q", "main"]);
    repo.commit("Change the readme", now - 40 * DAY, { "README.md": "hello again\n" });
    repo.git(["merge", "-q", "--no-ff", "-m", "Merge the side branch", "side"], now - 30 * DAY);
    repo.commit("Change the model once more", now - 20 * DAY, { "src/core/model.py": "x = 99\n" });
    repo.push();

    const second = await repo.history(repo.cache);
    const whole = await repo.history(undefined);
    expect(second.commits).toEqual(whole.commits);
    expect(second.commits.find((c) => c.oid === sideCommit)?.files).toEqual(["src/parser/read.py", "src/part1/mod1.py"]);
    expect(second.commits).toHaveLength(15);
    // The second pack holds four commits (three and the merge) and the trees they changed, not the year again.
    const [wholePack, added] = keptPackSizes(repo);
    expect(added).toBeLessThan(wholePack! / 3);

    // The branch has not moved: no history request at all, and the same history.
    const before = historyPackRequests();
    const third = await repo.history(repo.cache);
    expect(historyPackRequests()).toBe(before);
    expect(third.commits).toEqual(whole.commits);
  });

  it("holds what a whole fetch holds, and also the window's commits a whole fetch can no longer compare or cuts off", async () => {
    const repo = new Repository("sliding");
    const root = repo.git(["rev-parse", "HEAD"]);
    for (let d = 400; d >= 100; d -= 20) repo.commit(`Step ${d} days ago`, now - d * DAY, { [`src/step${d}.py`]: `d = ${d}\n` });
    repo.push();
    // A job a month ago, then one today on the same commit: no request, and the window has moved on a month.
    await repo.historyAt(repo.cache, now - 30 * DAY);
    const today = await repo.historyAt(repo.cache, now);
    const whole = await repo.historyAt(undefined, now);
    const log = await repo.logAt(now);
    const oids = (commits: CommitRecord[]) => commits.map((c) => c.oid);
    // The commit of 360 days ago is in the window, but its parent (380) is not any more: a whole fetch cannot compare it.
    const extra = today.commits.filter((c) => !oids(whole.commits).includes(c.oid));
    expect(extra.map((c) => c.message)).toEqual(["Step 360 days ago"]);
    expect(today.commits.filter((c) => oids(whole.commits).includes(c.oid))).toEqual(whole.commits);
    for (const commit of today.commits) expect(log).toContainEqual(commit);

    // A branch older than the window merged: git's deepen-since makes the merge a boundary, and a whole fetch sends
    // nothing behind it. The kept history, which the merge's first parent leads to, keeps its commits.
    repo.git(["checkout", "-q", "-b", "old", root]);
    repo.commit("An old branch", now - 500 * DAY, { "src/old.py": "old\n" });
    repo.git(["checkout", "-q", "main"]);
    repo.git(["merge", "-q", "--no-ff", "-m", "Merge the old branch", "old"], now - 2 * DAY);
    repo.commit("After the merge", now - DAY, { "src/after.py": "after\n" });
    repo.push();
    const merged = await repo.historyAt(repo.cache, now);
    const wholeMerged = await repo.historyAt(undefined, now);
    expect(wholeMerged.commits.map((c) => c.message)).toEqual(["After the merge"]);
    expect(merged.commits.map((c) => c.message)).toEqual(["After the merge", ...today.commits.map((c) => c.message)]);
    for (const commit of merged.commits) expect(await repo.logAt(now)).toContainEqual(commit);
  });

  it("keeps its history when the server fails the request, and goes on from it once the server serves again", async () => {
    const repo = await keptOnce("refusing");
    const kept = keptHistory(repo.cache, repo.remote.url)!;
    repo.commit("Another step", now - 5 * DAY, { "src/mod.py": "n = 2\n" });
    repo.push();
    const bare = path.join(root, `${repo.name}.git`);
    execFileSync("git", ["config", "uploadpack.allowFilter", "false"], { cwd: bare, stdio: "pipe" });
    const refused = await withShallowClone(repo.remote, "main", async (checkout) => checkout.history!, { history: window, objects: repo.cache });
    expect(refused.commits).toEqual([]);
    expect(refused.skipped).toContain("lacks the 'filter' capability");
    expect(keptHistory(repo.cache, repo.remote.url)?.head).toBe(kept.head);

    execFileSync("git", ["config", "uploadpack.allowFilter", "true"], { cwd: bare, stdio: "pipe" });
    const served = await repo.history(repo.cache);
    // ("Step" stands on a commit older than the window: no history can compare it.)
    expect(served.commits.map((c) => c.message)).toEqual(["Another step"]);
    expect(keptPackSizes(repo)).toHaveLength(2);
    // Kept packs of more bytes than a history fetch may bring are not read: the history is fetched whole.
    expect(keptHistory(repo.cache, repo.remote.url, 100)).toBeNull();
  });

  it("reads the history whole again when the branch was rewritten, and keeps that instead", async () => {
    const repo = new Repository("rewritten");
    for (let i = 0; i < 5; i++) repo.commit(`Step ${i}`, now - (100 - i * 10) * DAY, { [`src/mod${i}.py`]: `n = ${i}\n` });
    repo.push();
    await repo.history(repo.cache);
    const kept = keptHistory(repo.cache, repo.remote.url)!;
    // The last commit replaced by another one (the server still has the old one, so it knows the commit asked with).
    repo.git(["reset", "-q", "--hard", "HEAD~1"]);
    repo.commit("Step 4, done differently", now - 55 * DAY, { "src/other.py": "other\n" });
    repo.push();
    const rewritten = await repo.history(repo.cache);
    expect(rewritten.commits).toEqual((await repo.history(undefined)).commits);
    expect(rewritten.commits.map((c) => c.message)).not.toContain("Step 4");
    const now_ = keptHistory(repo.cache, repo.remote.url)!;
    expect(now_.head).not.toBe(kept.head);
    expect(now_.packs).toHaveLength(1);
  });

  it("reads the history whole when a kept pack is damaged or missing, or the window reaches further back", async () => {
    const repo = new Repository("damaged");
    repo.commit("Older than a year", now - 450 * DAY, { "src/old.py": "old\n" });
    const oldOne = repo.commit("Also older than a year", now - 400 * DAY, { "src/old.py": "older\n" });
    for (let i = 0; i < 4; i++) repo.commit(`Step ${i}`, now - (100 - i * 10) * DAY, { [`src/mod${i}.py`]: `n = ${i}\n` });
    repo.push();
    await repo.history(repo.cache);

    const kept = keptHistory(repo.cache, repo.remote.url)!;
    const packFile = path.join(kept.folder, `${kept.packs[0]}.pack`);
    fs.writeFileSync(packFile, fs.readFileSync(packFile).subarray(0, 40));
    repo.commit("Step 4", now - 50 * DAY, { "src/mod4.py": "n = 4\n" });
    repo.push();
    const afterDamage = await repo.history(repo.cache);
    expect(afterDamage.commits).toEqual((await repo.history(undefined)).commits);
    expect(keptPackSizes(repo)).toHaveLength(1);

    fs.rmSync(path.join(keptHistory(repo.cache, repo.remote.url)!.folder, `${keptHistory(repo.cache, repo.remote.url)!.packs[0]}.idx`));
    expect(keptHistory(repo.cache, repo.remote.url)).toBeNull();
    repo.commit("Step 5", now - 45 * DAY, { "src/mod5.py": "n = 5\n" });
    repo.push();
    const afterLoss = await repo.history(repo.cache);
    expect(afterLoss.commits).toEqual((await repo.history(undefined)).commits);

    // Two years asked for where one is kept: the commit from 400 days ago is only in the whole history.
    const twoYears = { months: 24, maxCommits: 5000 };
    const wider = await repo.history(repo.cache, twoYears);
    expect(wider.commits.map((c) => c.oid)).toContain(oldOne);
    expect(wider.commits).toEqual((await repo.history(undefined, twoYears)).commits);
  });

  it("keeps the history when the objects are forgotten, and evicts both together", async () => {
    const repo = await keptOnce("evicted");
    expect(cachedObjects(repo.cache, repo.remote.url)).not.toBeNull();
    forgetObjects(repo.cache, repo.remote.url);
    expect(cachedObjects(repo.cache, repo.remote.url)).toBeNull();
    expect(keptHistory(repo.cache, repo.remote.url)).not.toBeNull();

    // A second repository in the same cache, past the cache's bytes: the one used longest ago goes, history and all.
    const other = new Repository("evicting");
    other.commit("Step", now - 10 * DAY, { "src/mod.py": "n = 2\n" });
    other.push();
    await other.history(repo.cache);
    const folders = fs.readdirSync(repo.cache.dir).map((name) => path.join(repo.cache.dir, name));
    expect(folders).toHaveLength(2);
    const newest = folders.find((folder) => !keptHistory(repo.cache, repo.remote.url)!.folder.startsWith(folder))!;
    evict({ ...repo.cache, maxBytes: bytesIn(newest) });
    expect(keptHistory(repo.cache, repo.remote.url)).toBeNull();
    expect(fs.readdirSync(repo.cache.dir)).toEqual([path.basename(newest)]);
    expect(keptHistory(repo.cache, other.remote.url)).not.toBeNull();
  });

  it("leaves a manifest that does not read as no history", async () => {
    const repo = await keptOnce("malformed");
    const kept = keptHistory(repo.cache, repo.remote.url)!;
    fs.writeFileSync(path.join(kept.folder, "history.json"), JSON.stringify({ ...kept, head: "not a commit" }));
    expect(keptHistory(repo.cache, repo.remote.url)).toBeNull();
    const fetched = await repo.history(repo.cache);
    expect(fetched.commits).toEqual((await repo.history(undefined)).commits);
    expect(keptHistory(repo.cache, repo.remote.url)?.head).toBe(repo.git(["rev-parse", "HEAD"]));
  });
});
