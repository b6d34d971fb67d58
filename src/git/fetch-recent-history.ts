import type { HttpClient } from "isomorphic-git";
import { sliceWork } from "../lib/slice-work.js";
import { keepWindow, windowStart, type CommitRecord, type HistoryWindow } from "./commit-history.js";
import { gitHttpWithTimeout } from "./git-http-with-timeout.js";
import { earlierObjects, forgetHistory, keepHistory, keptHistory, type KeptHistory } from "./kept-history.js";
import type { ObjectCache } from "./object-cache.js";
import { fetchHistoryPack, type AdvertisedRefs } from "./pack/fetch-shallow-pack.js";
import { indexOfEntries, packName } from "./pack/index-pack.js";
import type { PackBytes } from "./pack/pack-file.js";
import { compareCommits, readHistoryObjects, type HistoryObjects } from "./pack/read-history-pack.js";

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
  /** Where the repository's history is kept between jobs (see keepHistory): only what is newer is fetched, and the history is kept there in turn. */
  kept?: { cache: ObjectCache; url: string };
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
      const fetch = (have?: string) => bounded.settle(fetchHistoryPack(client, advertised, { head, since, maxBytes: options.maxBytes, have }));
      const read = <T>(reading: Promise<T>): Promise<T> =>
        reading.catch((error: unknown) => {
          throw new Error(`the history pack of ${advertised.base} could not be read: ${error instanceof Error ? error.message : String(error)}`);
        });
      const keep = (commits: CommitRecord[], pack: PackBytes, objects: HistoryObjects, on: KeptHistory | null) => {
        if (!options.kept || stopped) return;
        keepHistory(options.kept.cache, {
          url: options.kept.url,
          history: { head, since, commits },
          pack: { name: packName(pack), pack, index: indexOfEntries(objects.entries, pack) },
          on,
        });
      };
      const whole = async (pack: PackBytes): Promise<CommitRecord[]> => {
        const objects = await read(readHistoryObjects(pack, pause));
        const commits = await read(compareCommits(objects, { head, window: options.window, pause }));
        keep(commits, pack, objects, null);
        return commits;
      };
      // What the branch added since the kept history's commit, compared with the kept packs' parents and trees.
      const sinceKept = async (kept: KeptHistory): Promise<CommitRecord[]> => {
        if (kept.head === head) return kept.commits.filter((commit) => commit.time >= since);
        const { pack, shallow, common } = await fetch(kept.head).catch((error: unknown) => {
          throw new RequestFailed(error);
        });
        // A server that no longer has the kept commit (a force push, then its garbage collection) sent the whole history.
        if (!common) return whole(pack);
        const objects = await read(readHistoryObjects(pack, pause));
        if (![...objects.commits.values()].some((commit) => commit.parents.includes(kept.head))) {
          throw new Error(`the branch no longer leads to the kept history's commit ${kept.head}`);
        }
        const earlier = earlierObjects(kept);
        const added = await read(compareCommits(objects, { head, window: options.window, pause, earlier, boundary: new Set(shallow) })).finally(() =>
          earlier.close(),
        );
        const older = kept.commits.filter((commit) => !objects.commits.has(commit.oid));
        const commits = keepWindow([...added, ...older], objects.commits.get(head)!.time, options.window).filter((commit) => commit.time >= since);
        keep(commits, pack, objects, kept);
        return commits;
      };
      const history = async (): Promise<CommitRecord[]> => {
        const kept = options.kept ? keptHistory(options.kept.cache, options.kept.url, options.maxBytes) : null;
        // A window reaching further back than the kept one (history_months raised) needs the whole history.
        if (kept && kept.since <= since) {
          try {
            return await sinceKept(kept);
          } catch (error) {
            // A server that failed the request (silent, refusing, over the limit) would fail the whole one too: the
            // kept history stays for the next job, and this one ranks without.
            if (stopped || error instanceof RequestFailed) throw error;
            // Kept history that could not serve (a rewritten branch, a damaged pack): forgotten, and read whole.
            forgetHistory(options.kept!.cache, options.kept!.url);
          }
        }
        return whole((await fetch()).pack);
      };
      running = history()
        .then((commits) => settle({ commits }))
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

/** The history request itself failed, not what was kept: the message is the request's. */
class RequestFailed extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}
