import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { windowStart, type HistoryWindow } from "../../../src/git/commit-history.js";
import { withShallowClone, type GitRemote } from "../../../src/git/clone-repository.js";
import { gitHttpWithTimeout } from "../../../src/git/git-http-with-timeout.js";
import { fetchHistoryPack, fetchShallowPack, type AdvertisedRefs } from "../../../src/git/pack/fetch-shallow-pack.js";
import { FLUSH, pktLine } from "../../../src/git/pack/pkt-lines.js";
import { resolvePack } from "../../../src/git/pack/index-pack.js";
import { readLocalHistory } from "../../../src/git/read-local-history.js";
import { gitEnv, startGitServer, type GitServer } from "../../support/git-server.js";

const token = "ghs_historytoken1234567890";
const window: HistoryWindow = { months: 24, maxCommits: 5000 };
const DAY = 86_400;
const now = Math.floor(Date.now() / 1000);

let root: string;
let server: GitServer;
// The first commit of the window, whose parent is older: the fetch gets it without its parent and cannot compare it.
let boundary: string;
let bare: string;

/** Writes a repository with the real git, one commit per step at the time given, and makes it the bare `octo/history.git`. */
function buildRepository(): void {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-history-"));
  try {
    const run = (args: string[], time?: number) => {
      const date = time === undefined ? {} : { GIT_AUTHOR_DATE: `${time} +0000`, GIT_COMMITTER_DATE: `${time} +0000` };
      return execFileSync("git", args, { cwd: work, env: { ...gitEnv(), ...date }, encoding: "utf8", stdio: "pipe" }).trim();
    };
    const write = (files: Record<string, string>) => {
      for (const [rel, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(work, rel)), { recursive: true });
        fs.writeFileSync(path.join(work, rel), text);
      }
    };
    const commit = (message: string, time: number) => {
      run(["add", "-A"]);
      run(["commit", "-q", "--allow-empty", "-m", message], time);
      return run(["rev-parse", "HEAD"]);
    };
    run(["init", "-q", "-b", "main"]);
    // Three years ago: outside the window.
    write({ "README.md": "hello\n", "src/core/model.py": "x = 1\n", "docs/old.md": "old\n", tools: "a file, later a folder\n" });
    commit("Initial commit", now - 3 * 365 * DAY);
    write({ "src/core/model.py": "x = 2\n" });
    commit("Change the model long ago", now - 900 * DAY);
    // Inside the window from here on.
    write({ "docs/old.md": "older\n", "src/new/helper.py": "def help(): pass\n" });
    boundary = commit("First commit of the window", now - 600 * DAY);
    write({ "src/deep/er/still/module.py": "deep = True\n" });
    commit("Add a deeply nested module\n\nWith a body that says why,\nover two lines.\n\nSigned-off-by: A Person <a@example.com>", now - 500 * DAY);
    fs.rmSync(path.join(work, "docs/old.md"));
    commit("Delete the old docs", now - 400 * DAY);
    run(["mv", "src/new/helper.py", "src/new/renamed.py"]);
    commit("Rename the helper", now - 300 * DAY);
    fs.chmodSync(path.join(work, "README.md"), 0o755);
    commit("Make the readme executable", now - 200 * DAY);
    write({ "docs/read me.md": "spaces\n", "docs/ünïcödé.md": "utf-8\n" });
    commit("Add names with a space and in UTF-8", now - 100 * DAY);
    fs.rmSync(path.join(work, "tools"));
    write({ "tools/run.sh": "#!/bin/sh\n" });
    commit("Turn the tools file into a folder", now - 90 * DAY);
    run(["checkout", "-q", "-b", "feature"]);
    write({ "src/core/model.py": "x = 3\n" });
    commit("Change the model on a branch", now - 80 * DAY);
    run(["checkout", "-q", "main"]);
    write({ "README.md": "hello again\n" });
    commit("Change the readme on main", now - 70 * DAY);
    run(["merge", "-q", "--no-ff", "-m", "Merge the feature", "feature"], now - 60 * DAY);
    write(Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`src/many/part${i % 7}/file${i}.py`, `n = ${i}\n`])));
    commit("Add many files", now - 50 * DAY);
    // A message in Latin-1, with an encoding header that git log turns into UTF-8.
    write({ "src/core/model.py": "x = 4\n" });
    run(["add", "-A"]);
    fs.writeFileSync(path.join(work, ".git", "latin1-message"), Buffer.from("Caf\xe9 cr\xe8me\n\nD\xe9j\xe0 vu.\n", "latin1"));
    run(["-c", "i18n.commitEncoding=ISO-8859-1", "commit", "-q", "-F", ".git/latin1-message"], now - 40 * DAY);
    write({ "src/core/model.py": "x = 5\n" });
    commit("Subject only", now - 30 * DAY);
    bare = path.join(root, "octo/history.git");
    fs.mkdirSync(path.dirname(bare), { recursive: true });
    execFileSync("git", ["clone", "-q", "--bare", work, bare], { env: gitEnv(), stdio: "pipe" });
    // The same repository on a server that will not filter file contents out.
    execFileSync("git", ["clone", "-q", "--bare", bare, path.join(root, "octo/nofilter.git")], { env: gitEnv(), stdio: "pipe" });
    execFileSync("git", ["config", "uploadpack.allowFilter", "true"], { cwd: bare, stdio: "pipe" });
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-git-"));
  buildRepository();
  server = await startGitServer(root, { token });
}, 60_000);
afterAll(async () => {
  await server?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const remote = (name: string, extra: Partial<GitRemote> = {}): GitRemote => ({ url: `${server.url}/octo/${name}.git`, token, ...extra });

describe("withShallowClone with a history", () => {
  it("fetches the commits git log shows, but the boundary commit, each with the files it changed", async () => {
    const local = await readLocalHistory({ gitDir: bare }, window);
    expect(local.map((c) => c.oid)).toContain(boundary);
    const fetched = await withShallowClone(
      remote("history"),
      "main",
      async (checkout) => {
        // The clone is whole while the history may still be on its way.
        expect(fs.readFileSync(path.join(checkout.dir, "README.md"), "utf8")).toBe("hello again\n");
        return checkout.history;
      },
      { history: window },
    );
    expect(fetched?.skipped).toBeUndefined();
    expect(fetched?.commits).toEqual(local.filter((c) => c.oid !== boundary));
    // What the fixture means to cover, checked on the fetched records themselves.
    const files = (subject: string) => fetched!.commits.find((c) => c.message.startsWith(subject))?.files;
    expect(files("Add a deeply nested module")).toEqual(["src/deep/er/still/module.py"]);
    expect(files("Delete the old docs")).toEqual(["docs/old.md"]);
    expect(files("Rename the helper")).toEqual(["src/new/helper.py", "src/new/renamed.py"]);
    expect(files("Make the readme executable")).toEqual(["README.md"]);
    expect(files("Add names with a space")).toEqual(["docs/read me.md", "docs/ünïcödé.md"]);
    expect(files("Turn the tools file into a folder")).toEqual(["tools", "tools/run.sh"]);
    expect(files("Add many files")).toHaveLength(150);
    expect(files("Café crème")).toEqual(["src/core/model.py"]);
    expect(fetched!.commits.find((c) => c.message.startsWith("Café"))?.message).toBe("Café crème\n\nDéjà vu.");
    expect(fetched!.commits.some((c) => c.message.startsWith("Merge"))).toBe(false);
    expect(fetched!.commits.some((c) => c.message === "Change the model on a branch")).toBe(true);
  });

  it("sends a pack of commits and trees only, since the window's start", async () => {
    const bounded = gitHttpWithTimeout(10_000);
    let advertised: [AdvertisedRefs, string] | undefined;
    await fetchShallowPack(bounded, { url: remote("history").url, token, branch: "main", alongside: (refs, head) => (advertised = [refs, head]) });
    const { pack, shallow } = await fetchHistoryPack(bounded, advertised![0], { head: advertised![1], since: windowStart(now, window), maxBytes: 2 ** 20 });
    const types = new Map<string, number>();
    await resolvePack(pack, undefined, (object) => types.set(object.type, (types.get(object.type) ?? 0) + 1));
    expect(types.get("blob")).toBeUndefined();
    // Every commit within the window, merge and side branch included; none older.
    expect(types.get("commit")).toBe(
      Number(execFileSync("git", ["rev-list", "--count", `--since=${windowStart(now, window)}`, "main"], { cwd: bare, encoding: "utf8" })),
    );
    expect(types.get("tree")).toBeGreaterThan(0);
    expect(shallow).toEqual([boundary]);
  });

  it("clones from a server that cannot filter, and says why there is no history", async () => {
    const history = await withShallowClone(
      remote("nofilter"),
      "main",
      async (checkout) => {
        expect(fs.existsSync(path.join(checkout.dir, "src/core/model.py"))).toBe(true);
        return checkout.history;
      },
      { history: window },
    );
    expect(history?.commits).toEqual([]);
    expect(history?.skipped).toContain("cannot send history without file contents");
    expect(history?.skipped).not.toContain(token);
  });

  it("leaves the history out when it is larger than the limit, and clones all the same", async () => {
    const history = await withShallowClone(
      remote("history", { maxHistoryBytes: 100 }),
      "main",
      async (checkout) => {
        expect(fs.readFileSync(path.join(checkout.dir, "src/core/model.py"), "utf8")).toBe("x = 5\n");
        return checkout.history;
      },
      { history: window },
    );
    expect(history).toEqual({
      commits: [],
      skipped: `the git server at ${server.url}/octo/history.git sent more than 100 bytes of history, the most a checkout reads; the history was left out`,
    });
  });

  it("says so when no commit is as recent as the window", async () => {
    const history = await withShallowClone(remote("history"), "main", async (checkout) => checkout.history, { history: { months: 0.5, maxCommits: 10 } });
    expect(history?.commits).toEqual([]);
    expect(history?.skipped).toMatch(/sent no history since \d{4}-\d\d-\d\d: the branch may have no commit that recent/);
  });

  it("keeps no history unless asked", async () => {
    expect(await withShallowClone(remote("history"), "main", async (checkout) => "history" in checkout)).toBe(false);
  });
});

describe("withShallowClone with a history that goes wrong", () => {
  // In front of the git server: the history request is answered as `historyAnswer` says, the others passed on.
  let historyAnswer: "silent" | "corrupt" | "failing" | "shallow-flood" | "progress-flood" = "silent";
  // Requests whose connection is dropped unanswered, by method, in turn: a kept-alive socket the server closed.
  let drops: string[] = [];
  let front: http.Server;
  let frontUrl: string;
  const held: { closed: boolean }[] = [];

  beforeAll(async () => {
    front = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const body = Buffer.concat(chunks);
        if (drops[0] === request.method) {
          drops.shift();
          request.socket.destroy();
          return;
        }
        if (body.includes("deepen-since") && historyAnswer === "corrupt") {
          // A version-2 pack of one object whose bytes and checksum are filler, on side band 1.
          const band = Buffer.concat([Buffer.from([1]), Buffer.from("PACK"), Buffer.from([0, 0, 0, 2, 0, 0, 0, 1]), Buffer.alloc(40, 9)]);
          response.writeHead(200, { "content-type": "application/x-git-upload-pack-result" });
          response.end(Buffer.concat([pktLine("NAK\n"), Buffer.from((band.length + 4).toString(16).padStart(4, "0")), band, FLUSH]));
          return;
        }
        if (body.includes("deepen-since") && historyAnswer.endsWith("-flood")) {
          // 4 MB of lines that are not the pack (shallow lines before NAK, or progress on band 2), then no pack at all.
          const line =
            historyAnswer === "shallow-flood"
              ? pktLine(`shallow ${"a".repeat(40)}\n`)
              : Buffer.concat([Buffer.from("0405"), Buffer.from([2]), Buffer.alloc(1024, 0x2e)]);
          const lines = Buffer.concat(Array.from({ length: Math.ceil((4 * 2 ** 20) / line.length) }, () => line));
          response.writeHead(200, { "content-type": "application/x-git-upload-pack-result" });
          response.end(historyAnswer === "shallow-flood" ? lines : Buffer.concat([pktLine("NAK\n"), lines, FLUSH]));
          return;
        }
        if (body.includes("deepen-since") && historyAnswer === "failing") {
          response.writeHead(500, { "content-type": "text/plain" }).end("internal error\n");
          return;
        }
        if (body.includes("deepen-since")) {
          const state = { closed: false };
          held.push(state);
          response.socket?.on("close", () => (state.closed = true));
          response.writeHead(200, { "content-type": "application/x-git-upload-pack-result" });
          response.write("0008NAK\n");
          return;
        }
        const forward = http.request(`${server.url}${request.url}`, { method: request.method, headers: request.headers }, (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        });
        forward.end(body);
      });
    });
    await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
    frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    front.closeAllConnections();
    await new Promise((resolve) => front.close(resolve));
  });

  it("does not hold the clone, and closes the history's connection when the work ends", async () => {
    historyAnswer = "silent";
    let pending: Promise<unknown> | undefined;
    let openDuringWork = false;
    const head = await withShallowClone(
      { url: `${frontUrl}/octo/history.git`, token, idleTimeoutMs: 30_000 },
      "main",
      async (checkout) => {
        pending = checkout.history;
        // The work runs while the history's request is still held open, unanswered: the clone did not wait for it.
        await expect.poll(() => held.length, { timeout: 2_000 }).toBe(1);
        openDuringWork = !held[0]!.closed;
        return checkout.head;
      },
      { history: window },
    );
    expect(openDuringWork).toBe(true);
    expect(head).toBe(server.git("octo/history", "rev-parse", "main"));
    expect(await pending).toEqual({ commits: [], skipped: "the checkout ended before its history arrived" });
    expect(held).toHaveLength(1);
    await expect.poll(() => held[0]!.closed, { timeout: 2_000 }).toBe(true);
  });

  it.each([
    ["corrupt", "the history pack of {url} could not be read: corrupt pack: its checksum does not match its bytes"],
    ["failing", "the git server at {url} answered HTTP 500 Internal Server Error; try again later"],
  ] as const)("says why a %s history is left out, and clones all the same", async (answer, reason) => {
    historyAnswer = answer;
    const url = `${frontUrl}/octo/history.git`;
    const history = await withShallowClone(
      { url, token },
      "main",
      async (checkout) => {
        expect(fs.readFileSync(path.join(checkout.dir, "README.md"), "utf8")).toBe("hello again\n");
        return checkout.history;
      },
      { history: window },
    );
    expect(history).toEqual({ commits: [], skipped: reason.replace("{url}", url) });
  });

  it.each(["shallow-flood", "progress-flood"] as const)("holds a %s to the history's byte limit", async (answer) => {
    historyAnswer = answer;
    const url = `${frontUrl}/octo/history.git`;
    const history = await withShallowClone({ url, token, maxHistoryBytes: 64 * 1024 }, "main", async (checkout) => checkout.history, { history: window });
    expect(history).toEqual({
      commits: [],
      skipped: `the git server at ${url} sent more than 64 KB of history, the most a checkout reads; the history was left out`,
    });
  });

  it("asks once more when the server drops a connection unanswered, and clones", async () => {
    historyAnswer = "failing";
    drops = ["GET", "POST"];
    const url = `${frontUrl}/octo/history.git`;
    const readme = await withShallowClone({ url, token }, "main", async (checkout) => fs.readFileSync(path.join(checkout.dir, "README.md"), "utf8"));
    expect(readme).toBe("hello again\n");
    expect(drops).toEqual([]);
    // Twice in a row is not a socket reused as it closed: the clone fails, saying so.
    drops = ["GET", "GET"];
    await expect(withShallowClone({ url, token }, "main", async () => "cloned")).rejects.toThrow(/ECONNRESET|socket hang up/);
    drops = [];
  });

  it("gives up on a silent history without failing the clone", async () => {
    historyAnswer = "silent";
    // The bound is the clone's too: long enough that a loaded machine's clone is not taken for a silent server.
    const history = await withShallowClone({ url: `${frontUrl}/octo/history.git`, token, idleTimeoutMs: 2_000 }, "main", async (checkout) => checkout.history, {
      history: window,
    });
    expect(history?.commits).toEqual([]);
    expect(history?.skipped).toMatch(/the git server did not answer POST http:\/\/127\.0\.0\.1:\d+\/octo\/history\.git\/git-upload-pack for 2000 ms/);
  });
});
