import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { sliceWork } from "../../lib/slice-work.js";
import type { CountAnswer, CountRequest } from "./count-terms-worker.js";
import { countFile, type FileTerms, type RankInput } from "./prepare-document.js";

/**
 * Counts files' terms (see countFile) on worker threads of its own, so that the thread that asks goes on with its
 * work meanwhile: a clone's main thread inflates the pack and writes the files while the worker tokenizes them, which
 * was a quarter of a first job's time on sympy when both were on one thread. The worker's answer is the same
 * FileTerms the main thread would count. When the worker cannot start or fails, it says so once (`warn`) and counts
 * on the calling thread, yielding to the event loop between slices.
 */
export interface TermCounter {
  /** Each file's terms, in the files' order. */
  count(files: RankInput[]): Promise<FileTerms[]>;
  /** Whether a worker thread counts (false once it failed, or when none could start). */
  readonly threaded: boolean;
  /** Stops the worker; later counts run on the calling thread. */
  close(): Promise<void>;
}

/** Where a worker's entry is and how to start it: the built `.js` beside this module, or the sources' `.ts` through tsx's loader (`tsx`, its URL). */
export interface WorkerEntry {
  url: URL;
  tsx?: string;
}

const ENTRY = "count-terms-worker";

/**
 * The worker's entry beside this module: `count-terms-worker.js` in dist/ (tsc) and in the Action's bundle (where this
 * module is index.js and scripts/lib/build-action.ts writes the worker beside it), or `count-terms-worker.ts` when the
 * sources run through tsx (or vitest), whose loader the worker is started with. Null when neither is there.
 */
export function termWorkerEntry(from: string = import.meta.url): WorkerEntry | null {
  const built = new URL(`./${ENTRY}.js`, from);
  if (fs.existsSync(fileURLToPath(built))) return { url: built };
  const source = new URL(`./${ENTRY}.ts`, from);
  if (!fs.existsSync(fileURLToPath(source))) return null;
  return { url: source, tsx: tsxApi(from) };
}

/** The URL of tsx's ES module API (its `register`), found from `from` as an import of `tsx/esm/api` would find it. */
function tsxApi(from: string): string {
  const manifest = createRequire(from).resolve("tsx/package.json");
  const { exports } = JSON.parse(fs.readFileSync(manifest, "utf8")) as { exports: Record<string, { import?: { default?: string } }> };
  const api = exports["./esm/api"]?.import?.default;
  if (!api) throw new Error(`tsx at ${path.dirname(manifest)} has no ES module API (./esm/api): install tsx 4 or later to run the sources`);
  return pathToFileURL(path.join(path.dirname(manifest), api)).href;
}

/** Counts on the calling thread, yielding now and then so a server's event loop is not held. */
async function countHere(files: RankInput[]): Promise<FileTerms[]> {
  const pause = sliceWork();
  const terms: FileTerms[] = [];
  for (const file of files) {
    terms.push(countFile(file));
    await pause();
  }
  return terms;
}

/**
 * A worker thread running `entry`: when the entry is a source, through a first module that registers tsx's loader
 * and then imports the entry, since a worker does not take its parent's loader (and tsx's `--import` registers
 * itself on the main thread only, on Node 20).
 */
function startWorker(entry: WorkerEntry): Worker {
  if (!entry.tsx) return new Worker(entry.url);
  const boot = `import { register } from ${JSON.stringify(entry.tsx)};\nregister();\nawait import(${JSON.stringify(entry.url.href)});\n`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`));
}

type Waiting = { files: RankInput[]; resolve: (terms: FileTerms[]) => void; reject: (error: unknown) => void };

/** One worker of a counter's pool, the requests it has not answered, and the bound on its silence while it has some. */
type Slot = { worker: Worker; waiting: Map<number, Waiting>; files: number; silence?: NodeJS.Timeout };

/**
 * Most milliseconds a worker with requests may go without answering one before it is taken for hung and its files are
 * counted on the calling thread. An answer is a batch of at most a few hundred files (about a third of a second of
 * sympy's on a quiet core, ten times that under heavy load), and the first also waits for the worker's start.
 */
const DEFAULT_SILENCE_MS = 60_000;

// Worker threads a counter starts: one on two cores, two from four. Two cores hold the main thread (inflating the pack,
// writing the files) and the one worker; on sympy's 1,603 .py files a cold worker counted in 2.8 s and two in 2.2 s
// (load 8, two cores), but a second worker's start and heap then compete with the main thread that drives the clone.
const DEFAULT_WORKERS = Math.max(1, Math.min(2, os.availableParallelism() - 2));

/**
 * A TermCounter with `workers` worker threads started from `entry` (found by termWorkerEntry when not given; null: no
 * worker); `warn` is told, once, why counting went back to the calling thread.
 */
export function startTermCounter({
  entry,
  workers = DEFAULT_WORKERS,
  warn = (line: string) => console.warn(line),
  silenceMs = DEFAULT_SILENCE_MS,
}: { entry?: WorkerEntry | null; workers?: number; warn?: (line: string) => void; silenceMs?: number } = {}): TermCounter {
  let slots: Slot[] = [];
  let nextId = 0;
  // Counting moves to the calling thread for good: the files waiting on any worker are counted there.
  const stop = (): Waiting[] => {
    const left = slots.flatMap((slot) => [...slot.waiting.values()]);
    for (const { worker, silence } of slots) {
      clearTimeout(silence);
      // Another worker of the pool failing as this one did says nothing new.
      worker.removeAllListeners().on("error", () => {});
      void worker.terminate();
    }
    slots = [];
    return left;
  };
  const fallBack = (why: string) => {
    if (slots.length === 0) return;
    warn(`magis: counting terms on the main thread, since a worker thread ${why}; indexing goes on, slower`);
    for (const { files, resolve, reject } of stop()) countHere(files).then(resolve, reject);
  };
  // The bound on a worker's silence runs from its last answer, or from the request that found it idle.
  const watch = (slot: Slot) => {
    clearTimeout(slot.silence);
    slot.silence = undefined;
    if (slot.waiting.size === 0) return;
    slot.silence = setTimeout(() => fallBack(`did not answer for ${silenceMs / 1000} s`), silenceMs);
    slot.silence.unref();
  };
  const answered = (slot: Slot, answer: CountAnswer) => {
    const request = slot.waiting.get(answer.id);
    if (!request) return;
    slot.waiting.delete(answer.id);
    slot.files -= request.files.length;
    watch(slot);
    // A worker keeps the process alive only while it counts for someone.
    if (slot.waiting.size === 0) slot.worker.unref();
    if ("terms" in answer) return request.resolve(answer.terms);
    countHere(request.files).then(request.resolve, request.reject);
    fallBack(`could not count (${answer.error.split("\n")[0]})`);
  };
  try {
    const found = entry === undefined ? termWorkerEntry() : entry;
    if (!found) throw new Error(`neither ${ENTRY}.js nor ${ENTRY}.ts is beside count-terms`);
    for (let i = 0; i < workers; i++) {
      const slot: Slot = { worker: startWorker(found), waiting: new Map(), files: 0 };
      slot.worker.on("message", (answer: CountAnswer) => answered(slot, answer));
      slot.worker.on("error", (error) => fallBack(`failed (${error.message})`));
      slot.worker.on("exit", (code) => fallBack(`stopped (exit code ${code})`));
      // After the listeners, which hold the process again: an idle worker never keeps it alive.
      slot.worker.unref();
      slots.push(slot);
    }
  } catch (error) {
    stop();
    warn(`magis: counting terms on the main thread, since the worker thread could not start (${(error as Error).message}); indexing goes on, slower`);
  }
  return {
    get threaded() {
      return slots.length > 0;
    },
    count: (files) => {
      if (slots.length === 0 || files.length === 0) return countHere(files);
      // To the worker with the fewest files still to count.
      const slot = slots.reduce((least, other) => (other.files < least.files ? other : least));
      const id = nextId++;
      const request: CountRequest = { id, files: files.map(({ path, text }) => ({ path, text })) };
      return new Promise((resolve, reject) => {
        slot.waiting.set(id, { files, resolve, reject });
        slot.files += files.length;
        if (!slot.silence) watch(slot);
        slot.worker.ref();
        slot.worker.postMessage(request);
      });
    },
    close: async () => {
      const running = slots.map(({ worker }) => worker);
      for (const { files, resolve, reject } of stop()) countHere(files).then(resolve, reject);
      await Promise.all(running.map((worker) => worker.terminate()));
    },
  };
}

let shared: TermCounter | undefined;

/** The process's one TermCounter, started when first asked for: every job's index counts through it. */
export function sharedTermCounter(): TermCounter {
  return (shared ??= startTermCounter());
}
