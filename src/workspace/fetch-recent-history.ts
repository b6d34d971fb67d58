import type { HttpClient } from "isomorphic-git";
import { sliceWork } from "../slice-work.js";
import { windowStart, type CommitRecord, type HistoryWindow } from "./commit-history.js";
import { gitHttpWithTimeout } from "./git-http-with-timeout.js";
import { fetchHistoryPack, type AdvertisedRefs } from "./pack/fetch-shallow-pack.js";
import { readHistoryPack } from "./pack/read-history-pack.js";

/** A fetched history: the commits, or none and why (`skipped`). */
export interface FetchedHistory {
  commits: CommitRecord[];
  /** Why there are no commits, in words a maintainer reads: the server cannot send them, they were too many bytes, … */
  skipped?: string;
}

/** A history fetch that runs next to a clone. */
export interface RecentHistory {
  /** Starts the fetch on the clone's advertisement; called once the branch's commit is known (see fetchShallowPack). */
  start(advertised: AdvertisedRefs, head: string): void;
  /** The history; never rejects. */
  result: Promise<FetchedHistory>;
  /** Ends the fetch if it is still running (its connection closed, its reading stopped) and waits until it has. */
  stop(): Promise<void>;
}

/** What a history fetch needs besides the advertisement. */
export interface RecentHistoryOptions {
  token: string;
  window: HistoryWindow;
  /** Most bytes of history pack the server may send; more leaves the history out. */
  maxBytes: number;
  /** Most milliseconds the server may stay silent. */
  idleMs: number;
  /** Seconds since 1970: the window starts this long before the clock, as the head's own time is not known yet. */
  now: number;
}

/**
 * A history of the cloned branch, fetched over its own connection (see fetchHistoryPack) so that it runs alongside
 * the clone, its silence or failure is never the clone's, and it can be cut off when the checkout is removed. Any
 * failure comes back as `skipped` with the reason, the token never in it.
 */
export function recentHistory(options: RecentHistoryOptions): RecentHistory {
  let settle!: (history: FetchedHistory) => void;
  const result = new Promise<FetchedHistory>((resolve) => (settle = resolve));
  let running: Promise<void> | undefined;
  let stopped = false;
  const ended = new AbortController();
  const slice = sliceWork();
  // Reading a large pack takes seconds of CPU; once the checkout is gone there is no one left to read it for.
  const pause = () => {
    if (stopped) throw new Error("the checkout ended before its history was read");
    return slice();
  };
  const skip = (error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    settle({ commits: [], skipped: options.token ? reason.split(options.token).join("***") : reason });
  };
  return {
    start: (advertised, head) => {
      // Its own requests, which stop aborts: their connections close with the checkout.
      const bounded = gitHttpWithTimeout(options.idleMs);
      const client: HttpClient = { request: (request) => bounded.request({ ...request, signal: ended.signal }) };
      const since = windowStart(options.now, options.window);
      running = bounded
        .settle(fetchHistoryPack(client, advertised, head, since, options.maxBytes))
        .then(async ({ pack }) => {
          const commits = await readHistoryPack(pack, head, options.window, pause).catch((error: unknown) => {
            throw new Error(`the history pack of ${advertised.base} could not be read: ${error instanceof Error ? error.message : String(error)}`);
          });
          settle({ commits });
        })
        .catch(skip);
    },
    result,
    stop: async () => {
      stopped = true;
      ended.abort();
      skip(new Error("the checkout ended before its history arrived"));
      await running;
    },
  };
}
