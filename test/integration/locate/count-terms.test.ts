import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildQuery } from "../../../src/pipeline/locate/build-query.js";
import { gitBlobId } from "../../../src/git/git-object-id.js";
import { startTermCounter, termWorkerEntry, type TermCounter } from "../../../src/pipeline/locate/count-terms.js";
import { indexRepository } from "../../../src/pipeline/locate/index-repository.js";
import { primeTerms } from "../../../src/pipeline/locate/prime-terms.js";
import { countFile, type FileTerms } from "../../../src/pipeline/locate/prepare-document.js";
import { rememberedTerms, TermMemo, termsKey, type TermMemory } from "../../../src/pipeline/locate/remember-terms.js";
import { sliceWork } from "../../../src/lib/slice-work.js";
import { openSqliteStore, type SqliteStore } from "../../../src/backends/sqlite/sqlite-store.js";
import type { ClonedFile } from "../../../src/git/write-worktree.js";
import { cartIssue, makeFixtureRepo } from "./fixture-repo.js";

const list = { exclude: [], maxFileBytes: 200_000 };
const SOURCES = path.resolve(import.meta.dirname, "../../../src/pipeline/locate");

let repo: string;
let work: string;
const stores: SqliteStore[] = [];
const counters: TermCounter[] = [];

beforeEach(() => {
  // The fixture's Python, with real TypeScript beside it: this project's own indexing code, as a clone would write it.
  repo = makeFixtureRepo();
  fs.mkdirSync(path.join(repo, "locate"));
  for (const name of fs.readdirSync(SOURCES)) fs.copyFileSync(path.join(SOURCES, name), path.join(repo, "locate", name));
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-count-terms-"));
});

afterEach(async () => {
  for (const counter of counters.splice(0)) await counter.close();
  for (const store of stores.splice(0)) await store.close();
  fs.rmSync(repo, { recursive: true, force: true });
  fs.rmSync(work, { recursive: true, force: true });
});

function counter(options: Parameters<typeof startTermCounter>[0] = {}): TermCounter {
  const started = startTermCounter(options);
  counters.push(started);
  return started;
}

/** Every file of the tree as a clone hands it over: path, blob id, bytes. */
function clonedFiles(): ClonedFile[] {
  return fs
    .readdirSync(repo, { recursive: true, encoding: "utf8" })
    .filter((rel) => fs.statSync(path.join(repo, rel)).isFile())
    .sort()
    .map((rel) => {
      const bytes = fs.readFileSync(path.join(repo, rel));
      return { path: rel, oid: gitBlobId(bytes), bytes };
    });
}

function filesToCount(): Array<{ path: string; text: string }> {
  return clonedFiles().map(({ path: rel, bytes }) => ({ path: rel, text: bytes.toString("utf8") }));
}

/** FileTerms as plain data, the terms in the order counted. */
function plain(terms: FileTerms[]): unknown {
  return terms.map(({ counts, defined, definedTerms }) => ({ counts: [...counts], defined, definedTerms }));
}

async function memory(): Promise<TermMemory> {
  const store = openSqliteStore(path.join(work, `magis-${stores.length}.db`));
  await store.migrate();
  stores.push(store);
  return { cache: store.memory.index, memo: new TermMemo() };
}

/** An entry that is no worker: it throws as it loads, or ends its thread when asked to count. */
function brokenEntry(body: string): { url: URL } {
  const file = path.join(work, `broken-${counters.length}.mjs`);
  fs.writeFileSync(file, body);
  return { url: pathToFileURL(file) };
}

describe("counting terms on a worker thread", () => {
  it("finds the sources' entry and counts on the worker what the main thread counts", async () => {
    expect(termWorkerEntry()?.url.pathname).toMatch(/count-terms-worker\.ts$/);
    const threaded = counter();
    const files = filesToCount();
    const counted = await threaded.count(files);
    expect(threaded.threaded).toBe(true);
    expect(files.length).toBeGreaterThan(20);
    expect(plain(counted)).toEqual(plain(files.map(countFile)));
  });

  it("builds through the worker the index the main thread builds for the same tree: the same terms by blob, the same ranking", async () => {
    const warnings: string[] = [];
    const viaWorker = await memory();
    const here = await memory();
    await primeTerms(viaWorker, list, undefined, counter())(clonedFiles());
    await primeTerms(here, list, undefined, counter({ entry: null, warn: (line) => warnings.push(line) }))(clonedFiles());
    expect(warnings).toEqual([expect.stringMatching(/main thread.*could not start/)]);
    for (const { path: rel, oid } of clonedFiles()) {
      const a = viaWorker.memo.get(termsKey(rel, oid))?.terms;
      const b = here.memo.get(termsKey(rel, oid))?.terms;
      expect(a, rel).toBeDefined();
      expect(plain([a!]), rel).toEqual(plain([b!]));
    }
    const a = await indexRepository(repo, list, { terms: viaWorker });
    const b = await indexRepository(repo, list, { terms: here });
    expect(a.stats).toEqual(b.stats);
    expect(a.candidates.files.map((file) => file.path)).toEqual(b.candidates.files.map((file) => file.path));
    for (const issue of [
      cartIssue,
      { title: "primeTerms counts terms twice", body: "`countFile` in `prime-terms.ts` tokenizes the same blob again", hints: [] },
    ]) {
      const ranked = await a.rank(buildQuery(issue), 10);
      expect(ranked.length).toBeGreaterThan(0);
      expect(ranked).toEqual(await b.rank(buildQuery(issue), 10));
    }
  });

  it("indexes the blobs neither the memo nor the store holds through the counter, in batches over its workers", async () => {
    const threaded = counter();
    const asked: number[] = [];
    const spy: TermCounter = { ...threaded, count: (files) => (asked.push(files.length), threaded.count(files)), close: () => threaded.close() };
    // 450 files of their own text, and the fixture's: the memo holds none, the store none.
    const files = [
      ...filesToCount(),
      ...Array.from({ length: 450 }, (_, i) => ({ path: `gen/module_${i}.py`, text: `def handler_${i}(request):\n    return request.value_${i}\n` })),
    ];
    const kept = await memory();
    const viaWorker = await rememberedTerms(files, kept, sliceWork(), spy);
    const here = await rememberedTerms(files, await memory(), sliceWork(), counter({ entry: null, warn: () => {} }));
    expect(asked.reduce((sum, n) => sum + n, 0)).toBe(files.length);
    expect(Math.max(...asked)).toBeLessThanOrEqual(200);
    expect(viaWorker.tokenized).toBe(files.length);
    expect(viaWorker.keys).toEqual(here.keys);
    expect(viaWorker.defined).toEqual(here.defined);
    expect(viaWorker.documents).toEqual(here.documents);
    // A second time, the memo holds every blob: nothing is counted.
    asked.length = 0;
    expect((await rememberedTerms(files, kept, sliceWork(), spy)).documents).toEqual(here.documents);
    expect(asked).toEqual([]);
  });

  it("counts on the main thread, and says so once, when the worker fails as it loads", async () => {
    const warnings: string[] = [];
    const broken = counter({ entry: brokenEntry('throw new Error("no worker here");\n'), warn: (line) => warnings.push(line) });
    const files = filesToCount();
    const [first, second] = await Promise.all([broken.count(files.slice(0, 5)), broken.count(files.slice(5))]);
    expect(plain([...first, ...second])).toEqual(plain(files.map(countFile)));
    expect(broken.threaded).toBe(false);
    expect(warnings).toEqual([expect.stringMatching(/^magis: counting terms on the main thread, since a worker thread failed \(no worker here\)/)]);
    expect(plain(await broken.count(files.slice(0, 2)))).toEqual(plain(files.slice(0, 2).map(countFile)));
    expect(warnings).toHaveLength(1);
  });

  it("counts on the main thread what a worker that stopped answering was counting", async () => {
    const warnings: string[] = [];
    // Takes every request and never answers, as a thread stuck in a loop would.
    const entry = brokenEntry('import { parentPort } from "node:worker_threads";\nparentPort.on("message", () => {});\n');
    const hung = counter({ entry, warn: (line) => warnings.push(line), silenceMs: 300 });
    const files = filesToCount();
    const [first, second] = await Promise.all([hung.count(files.slice(0, 3)), hung.count(files.slice(3))]);
    expect(plain([...first, ...second])).toEqual(plain(files.map(countFile)));
    expect(hung.threaded).toBe(false);
    expect(warnings).toEqual([expect.stringMatching(/^magis: counting terms on the main thread, since a worker thread did not answer for 0.3 s/)]);
  });

  it("keeps a worker that answers within the bound, however long the whole count takes", async () => {
    const warnings: string[] = [];
    const slow = counter({ warn: (line) => warnings.push(line), silenceMs: 5_000 });
    const files = filesToCount();
    // Many requests queued at once: each answer resets the bound, so the count as a whole may outlast it.
    const counted = await Promise.all(files.map((file) => slow.count([file])));
    expect(plain(counted.flat())).toEqual(plain(files.map(countFile)));
    expect(slow.threaded).toBe(true);
    expect(warnings).toEqual([]);
  });

  it("counts on the main thread what a worker that ended was counting", async () => {
    const warnings: string[] = [];
    const entry = brokenEntry('import { parentPort } from "node:worker_threads";\nparentPort.on("message", () => process.exit(3));\n');
    const ending = counter({ entry, warn: (line) => warnings.push(line) });
    const files = filesToCount();
    expect(plain(await ending.count(files))).toEqual(plain(files.map(countFile)));
    expect(warnings).toEqual([expect.stringMatching(/a worker thread stopped \(exit code 3\)/)]);
  });
});
