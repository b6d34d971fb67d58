import type { GitHttpResponse, HttpClient } from "isomorphic-git";
import { withinTime } from "../lib/within-time.js";
import { fetchGitHttp } from "./fetch-git-http.js";

/** How long a git server may stay silent (before answering, or between two parts of its answer) unless the remote says otherwise. */
export const DEFAULT_GIT_IDLE_MS = 60_000;

/** An isomorphic-git HTTP client that remembers the first time the server went silent. */
export interface BoundedGitHttp extends HttpClient {
  /**
   * Awaits a clone made over this client; if the server went silent during it, that is the error.
   * isomorphic-git swallows some read errors (a stalled ref advertisement reads as an empty repository).
   */
  settle<T>(operation: Promise<T>): Promise<T>;
}

/**
 * An HTTP client for git's smart protocol (see fetchGitHttp), failing when the git server stays silent for `idleMs`: waiting for the answer
 * to start, or for its next part. A clone of a large repository may take minutes as long as data keeps coming;
 * a server that accepts the connection and then says nothing would otherwise hold the job forever. A request's own
 * `signal` is honoured as well.
 */
export function gitHttpWithTimeout(idleMs: number): BoundedGitHttp {
  let silence: Error | undefined;
  return {
    settle: async (operation) => {
      const result = await operation.catch((error: unknown) => {
        throw silence ?? error;
      });
      if (silence) throw silence;
      return result;
    },
    request: async (request) => {
      const controller = new AbortController();
      const silent = () => {
        controller.abort();
        const { origin, pathname } = new URL(request.url);
        const error = new Error(
          `the git server did not answer ${request.method ?? "GET"} ${origin}${pathname} for ${idleMs} ms; it may be down or overloaded. Try again later.`,
        );
        silence ??= error;
        return error;
      };
      // A caller's own signal (a checkout that ended) stops the request too.
      const signal = request.signal ? AbortSignal.any([controller.signal, request.signal]) : controller.signal;
      const response = await withinTime(fetchGitHttp.request({ ...request, signal }), idleMs, silent);
      return { ...response, body: response.body && bodyWithinSilence(response.body, idleMs, silent) };
    },
  };
}

/** The response body, part by part, each part due within `ms` of asking for it (time spent by the reader does not count). */
async function* bodyWithinSilence(body: NonNullable<GitHttpResponse["body"]>, ms: number, silent: () => Error): AsyncIterableIterator<Uint8Array> {
  const parts = body[Symbol.asyncIterator]();
  try {
    while (true) {
      const next = await withinTime(parts.next(), ms, silent);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await parts.return?.();
  }
}
