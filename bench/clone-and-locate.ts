// Side by side, in one run: the native `git clone --depth 1` of a real repository served by the real
// `git http-backend`, against what the bot does before its first model call — its own shallow clone
// (its own smart-HTTP fetch and pack reader), the candidate listing, the BM25 index and the first query,
// with the Custodian's terms learned while the clone writes the files, as a job does. A first job starts
// with an empty index cache; a second job runs after a commit changed a few files, with the cache the
// first job left: in the same process (the store and its in-process memo) and in a new process (the
// store alone, as the Action door has it). Storing the terms the first job tokenized, which a job does once its
// first model requests are on their way, is timed on its own and left out of the bot's total. The bot also fetches the last year of commits (commits and
// trees, no contents) beside its clone and ranks with them, as a job does, unless --no-history; and it keeps the
// clone's objects and the history, as a worker does, so that its second jobs fetch only what the new commit adds and
// the commits made since, unless --no-objects.
//
//   npm run bench:clone -- --mirror /work/.mirror/sympy+sympy/repo [--runs 3] [--changed 3] [--workdir DIR] [--no-history] [--no-objects] [--link-mb 10] [--profile DIR] [--term-workers N]
//
// --term-workers counts the files' terms on that many worker threads (0: on the main thread, as before there were any)
// instead of the process's default (see TermCounter).
// --profile writes a CPU profile of the main thread for each of the bot's jobs into DIR (first-1.cpuprofile, …), to
// open in Chrome's DevTools or read with bench/lib/profile-top.ts.
//
// --link-mb sends the server's answers no faster than that many megabytes (10^6 bytes) a second, to both clones, as
// over the network between a worker and its git host; without it they go as fast as the machine makes them.
// --mirror is any git repository (bare or not); its HEAD's last 25 months are copied into a bare repository
// the benchmark serves (with uploadpack.allowFilter, as GitHub allows partial clones) from a process of its own.
// Native and bot runs alternate, so both see the same machine load.
import { execFile, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs, promisify } from "node:util";
import { Session } from "node:inspector/promises";
import { parseConfig } from "../src/config.js";
import { buildQuery } from "../src/pipeline/locate/build-query.js";
import { indexRepository } from "../src/pipeline/locate/index-repository.js";
import { openJobIndex } from "../src/pipeline/locate/open-job-index.js";
import { startTermCounter } from "../src/pipeline/locate/count-terms.js";
import { TermMemo, type TermMemory } from "../src/pipeline/locate/remember-terms.js";
import { openSqliteStore } from "../src/backends/sqlite/sqlite-store.js";
import { withShallowClone } from "../src/git/clone-repository.js";
import { keptHistory } from "../src/git/kept-history.js";
import type { ObjectCache } from "../src/git/object-cache.js";
import { DEFAULT_HISTORY_WINDOW } from "../src/git/commit-history.js";
import { addCommit, gitEnv } from "../test/support/git-server.js";

const { values } = parseArgs({
  options: {
    mirror: { type: "string" },
    runs: { type: "string", default: "3" },
    changed: { type: "string", default: "3" },
    workdir: { type: "string" },
    "no-history": { type: "boolean", default: false },
    "no-objects": { type: "boolean", default: false },
    "link-mb": { type: "string" },
    profile: { type: "string" },
    "term-workers": { type: "string" },
  },
});
const history = values["no-history"] ? undefined : DEFAULT_HISTORY_WINDOW;
if (!values.mirror) {
  console.error(
    "usage: npm run bench:clone -- --mirror GIT_DIR [--runs 3] [--changed 3] [--workdir DIR] [--no-history] [--no-objects] [--link-mb MB_PER_S] [--profile DIR] [--term-workers N]",
  );
  process.exit(2);
}
const linkMb = values["link-mb"];
if (linkMb !== undefined && !(Number(linkMb) * 1e6 >= 1)) {
  console.error(`--link-mb is '${linkMb}': give the link's speed in megabytes a second (10 for 80 Mbit/s), or leave it out for no limit`);
  process.exit(2);
}
const termWorkers = values["term-workers"];
if (termWorkers !== undefined && !/^\d+$/.test(termWorkers)) {
  console.error(`--term-workers is '${termWorkers}': give how many worker threads count the terms (0 for the main thread), or leave it out for the default`);
  process.exit(2);
}
const counter =
  termWorkers === undefined
    ? undefined
    : Number(termWorkers) === 0
      ? startTermCounter({ entry: null, warn: () => {} })
      : startTermCounter({ workers: Number(termWorkers) });
const runs = Number(values.runs);
const FULL = "bench/repo";
const TOKEN = "ghs_benchCloneToken0123456789abcdef";
const ISSUE = {
  title: "Symbol.free_symbols is wrong for Derivative of an undefined Function",
  body: "```python\n>>> from sympy import Function, Symbol, Derivative\n>>> Derivative(f(x), x).free_symbols\n```\nraises `AttributeError: 'Derivative' object has no attribute 'variable_count'` in `Derivative._eval_derivative`.",
  hints: [],
};

const root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-bench-clone-"));
const workdir = values.workdir ?? root;
let stopServer: (() => Promise<void>) | undefined;
try {
  const bare = path.join(root, `${FULL}.git`);
  const headTime = Number(execFileSync("git", ["-C", path.resolve(values.mirror), "log", "-1", "--format=%ct", "HEAD"], { encoding: "utf8" }).trim());
  const since = new Date((headTime - 25 * 30.44 * 24 * 3600) * 1000).toISOString();
  execFileSync("git", ["clone", "-q", "--bare", `--shallow-since=${since}`, "--no-tags", `file://${path.resolve(values.mirror)}`, bare], { env: gitEnv() });
  execFileSync("git", ["config", "uploadpack.allowFilter", "true"], { cwd: bare });
  const branch = execFileSync("git", ["symbolic-ref", "--short", "HEAD"], { cwd: bare, encoding: "utf8" }).trim();
  const files = execFileSync("git", ["ls-tree", "-r", "--name-only", "HEAD"], { cwd: bare, encoding: "utf8" }).trim().split("\n");
  console.log(
    `repository: ${values.mirror} at ${execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: bare, encoding: "utf8" }).trim()}, ${files.length} files, ${files.filter((f) => f.endsWith(".py")).length} .py`,
  );
  // The server runs in a process of its own, as a remote host would (see bench/lib/serve-git.ts).
  const server = await serveGit(root, TOKEN, linkMb === undefined ? undefined : Math.round(Number(linkMb) * 1e6));
  stopServer = server.stop;
  const remote = { url: `${server.url}/${FULL}.git`, token: TOKEN };
  const authedUrl = remote.url.replace("http://", `http://x-access-token:${TOKEN}@`);
  const config = parseConfig({});
  const list = { exclude: config.exclude, maxFileBytes: config.max_file_bytes };

  // Asynchronous, as the bot's own clone is.
  const run = promisify(execFile);
  const native = async (): Promise<number> => {
    const dir = fs.mkdtempSync(path.join(workdir, "native-"));
    const start = performance.now();
    await run("git", ["clone", "-q", "--depth", "1", "--single-branch", "--no-tags", authedUrl, dir], { env: gitEnv() });
    const took = performance.now() - start;
    fs.rmSync(dir, { recursive: true, force: true });
    return took;
  };
  const bot = async (terms: TermMemory, objects: ObjectCache | undefined): Promise<{ total: number; parts: string }> => {
    const start = performance.now();
    let parts = "";
    let storing = 0;
    let firstFiles = 0;
    let workDone = 0;
    // As a job: the clone hands the files it writes to the job's index, which learns their terms meanwhile.
    const job = openJobIndex({ terms, list, ...(counter && { counter }) });
    // When the first files were written: for a second job, about when its pack (only what is new) had come.
    const sink = {
      ...job,
      add: (files: Parameters<typeof job.add>[0]) => {
        firstFiles ||= performance.now();
        return job.add(files);
      },
    };
    await withShallowClone(
      remote,
      branch,
      async (checkout) => {
        const cloned = performance.now();
        const past = checkout.history ? await checkout.history : { commits: [] };
        const fetched = performance.now();
        // As a job: the terms tokenized are stored after the first query, while the model reads the candidates.
        // As a job: the files the clone wrote are listed as it hands them over, not read back from the work tree.
        const written = job.takeWritten();
        const index = await indexRepository(checkout.dir, list, {
          terms,
          history: past.commits,
          storeLater: true,
          ...(written && { written, judge: written.judge }),
        });
        const indexed = performance.now();
        const top = await index.rank(buildQuery(ISSUE), 10);
        const queried = performance.now();
        await index.remember();
        storing = performance.now() - queried;
        // How many history packs the worker keeps now: one after a whole history, one more for each job that fetched only what was new.
        const keptPacks = objects && history ? `, ${keptHistory(objects, remote.url)?.packs.length ?? 0} kept packs` : "";
        const historyPart = history
          ? `history ${past.commits.length} commits${"skipped" in past && past.skipped ? ` (skipped: ${past.skipped})` : ""}${keptPacks}, waited ${ms(fetched - cloned)}, `
          : "";
        workDone = performance.now();
        parts = `clone ${ms(cloned - start)} (first files written at ${ms(firstFiles - start)}), ${historyPart}list+index ${ms(indexed - fetched)} (${index.stats.tokenized} of ${index.stats.files} files tokenized, ${index.stats.parsed} parsed), query ${ms(queried - indexed)}, storing the terms after it ${ms(storing)}, top ${top[0]?.path ?? "-"}`;
      },
      { parentDir: workdir, sink, history, objects },
    );
    // Neither storing the terms, which a job does while the model answers its first requests, nor keeping the work
    // tree for the next job (or removing it), which a job does once it ended, is before the first model call; the
    // native clone's time leaves its removal out too.
    const removing = performance.now() - workDone;
    return { total: workDone - start - storing, parts: `${parts}, keeping the work tree for the next job (or removing it) ${ms(removing)} after it` };
  };
  const ratios: Record<string, number[]> = { first: [], second: [], "second, new process": [] };
  const compare = async (label: keyof typeof ratios, run: number, terms: TermMemory, objects: ObjectCache | undefined): Promise<void> => {
    const n = await native();
    const profile = values.profile ? await startProfile() : undefined;
    const b = await bot(terms, objects);
    if (profile) await profile(path.join(values.profile!, `${label.replace(/\W+/g, "-")}-${run}.cpuprofile`));
    ratios[label]!.push(b.total / n);
    console.log(`${label} job ${run}: native ${ms(n)}, bot ${ms(b.total)} = ${(b.total / n).toFixed(2)}×  (${b.parts})`);
  };
  let bytes = 0;
  const changed = files.filter((f) => f.endsWith(".py")).slice(0, Number(values.changed));
  for (let run = 1; run <= runs; run++) {
    // A store of its own per run: the first job finds nothing, in the store or in the process.
    const file = path.join(root, `magis-${run}.db`);
    const store = openSqliteStore(file);
    await store.migrate();
    // And a folder of kept objects of its own, as a worker's: the first job finds none.
    const objects = values["no-objects"] ? undefined : { dir: path.join(root, `objects-${run}`), maxBytes: 2 ** 30, maxPacks: 16 };
    // One memo in front of the store, as a worker's process keeps (see TermMemory).
    const terms = { cache: store.memory.index, memo: new TermMemo() };
    await compare("first", run, terms, objects);
    // A commit touches a few files: the second job finds the first job's blobs in the cache, all but those.
    const change = (mark: string) =>
      addCommit(root, FULL, {
        branch,
        files: Object.fromEntries(
          changed.map((f) => [
            f,
            `${execFileSync("git", ["show", `${branch}:${f}`], { cwd: bare, encoding: "utf8" }).trim()}\n# changed by the benchmark, ${mark}\n`,
          ]),
        ),
        message: `change ${changed.length} files`,
        author: { name: "Bench", email: "bench@example.com" },
      });
    change(`run ${run}`);
    await compare("second", run, terms, objects);
    // Another commit, and the same store opened again, as another process would: no memo, the unchanged files'
    // terms read from the store, the changed ones tokenized.
    change(`run ${run}, again`);
    const reopened = openSqliteStore(file);
    await compare("second, new process", run, { cache: reopened.memory.index, memo: new TermMemo() }, objects);
    bytes = await store.memory.index.bytes();
    await reopened.close();
    await store.close();
  }
  for (const [label, values] of Object.entries(ratios)) {
    values.sort((a, b) => a - b);
    console.log(`${label} job: median ${values[Math.floor(values.length / 2)]!.toFixed(2)}× the native clone (${values.map((v) => v.toFixed(2)).join(", ")})`);
  }
  console.log(
    `cache: ${(bytes / 1e6).toFixed(1)} MB; terms counted on ${termWorkers === undefined ? "the default" : termWorkers} worker threads; link: ${linkMb === undefined ? "no limit" : `${linkMb} MB/s`}; machine: ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
} finally {
  await counter?.close();
  await stopServer?.();
  fs.rmSync(root, { recursive: true, force: true });
}

/** Starts profiling this thread; the function returned stops and writes the profile to `file`. */
async function startProfile(): Promise<(file: string) => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return async (file) => {
    const { profile } = await session.post("Profiler.stop");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

/** Starts bench/lib/serve-git.ts in a process group of its own; `stop` ends the group, server and backends alike. */
async function serveGit(dir: string, token: string, bytesPerSecond?: number): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(import.meta.dirname, "lib", "serve-git.ts"), dir, token, ...(bytesPerSecond ? [String(bytesPerSecond)] : [])],
    {
      detached: true,
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // Gone already.
    }
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  };
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (part: Buffer) => {
        out += part.toString("utf8");
        if (out.includes("\n")) resolve(out.slice(0, out.indexOf("\n")));
      });
      child.once("exit", (code) => reject(new Error(`the git server's process ended (${code}) before it served`)));
    });
    return { url: (JSON.parse(line) as { url: string }).url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function ms(value: number): string {
  return `${(value / 1000).toFixed(2)} s`;
}
