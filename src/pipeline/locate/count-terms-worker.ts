// The entry of a worker thread that counts files' terms for the main thread (see TermCounter in count-terms.ts): a
// clone's main thread inflates the pack and writes the files while this one tokenizes them. It answers each request,
// `{ id, files }`, with `{ id, terms }` (each file's FileTerms, in order) or `{ id, error }`.
import { parentPort } from "node:worker_threads";
import { countFile, type FileTerms } from "./prepare-document.js";

/** What the main thread asks: the files to count, by path and text. */
export interface CountRequest {
  id: number;
  files: Array<{ path: string; text: string }>;
}

/** What the worker answers: each file's terms in the request's order, or why it could not count them. */
export type CountAnswer = { id: number; terms: FileTerms[] } | { id: number; error: string };

function answer({ id, files }: CountRequest): CountAnswer {
  try {
    return { id, terms: files.map(countFile) };
  } catch (error) {
    return { id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}

if (!parentPort) throw new Error("count-terms-worker.ts is a worker thread's entry: start it with new Worker(), not as a program");
const port = parentPort;
port.on("message", (request: CountRequest) => port.postMessage(answer(request)));
