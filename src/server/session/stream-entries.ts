import type { ServerResponse } from "node:http";
import { keptForParts, sessionHasEnded } from "../../session/session-live-script.js";
import type { StoredSessionEntry } from "../../session/types.js";
import type { JobRecord, JobStatus } from "../../store/jobs.js";
import type { SessionStore } from "../../store/sessions.js";
import type { JobStore } from "../../store/store.js";
import { SESSION_HEADERS } from "./page-headers.js";
import { storedEntry } from "../../session/stored-entry.js";

/** How often a stream looks for new entries, and how long it stays silent before a comment keeps the connection open. */
export interface StreamTiming {
  /** 250–500 ms: a stage's end shows within half a second, and a database serves a few such reads a second per viewer. */
  pollMs: number;
  /** Proxies close a connection silent for a minute or so: a comment every 15 s keeps it. */
  keepaliveMs: number;
  /**
   * How long a stream goes on after the job's record says it ended, for entries still on their way (the recorder
   * writes in batches): it closes sooner once the final `outcome` entry went out.
   */
  settleMs: number;
  /** How often an open stream asks again whether its viewer may still read the job (access removed, repository gone). */
  recheckMs: number;
}

export const DEFAULT_STREAM_TIMING: StreamTiming = { pollMs: 300, keepaliveMs: 15_000, settleMs: 3_000, recheckMs: 180_000 };

/** Entries read per poll: a long backlog goes out in pages, without waiting between them. */
const PAGE = 200;

/** What one stream reads and how it turns an entry into an event's data. */
export interface EntryStream {
  jobs: Pick<JobStore, "get">;
  sessions: Pick<SessionStore, "read">;
  jobId: number;
  /** The last entry the viewer has: the stream sends those after it. */
  afterSeq: number;
  /**
   * The whole event of an entry, as the live script reads it (session-live-script's sessionEventMessage, `id:` line
   * included): `session` is what the stream keeps of the job's entries up to it (keptForParts), from which the parts it
   * changes are rendered.
   */
  message: (entry: StoredSessionEntry, session: readonly StoredSessionEntry[]) => string | Promise<string>;
  /**
   * The event that tells the script the job has ended, sent when the record says so but no final outcome entry went out
   * (a job failed as lost has none; a viewer reconnecting after the end has it already): `job` is the record as read last.
   */
  ending: (session: readonly StoredSessionEntry[], job: JobRecord | null) => string;
  /** Asked every `timing.recheckMs` while the stream is open: false (the viewer lost access) closes it. */
  stillAllowed: () => Promise<boolean>;
  timing: StreamTiming;
  /** Aborted when the client went away or the server stops. */
  signal: AbortSignal;
  now?: () => number;
}

const ENDED: ReadonlySet<JobStatus> = new Set(["succeeded", "failed", "declined", "cancelled"]);

/** Whether a job record's status is final. */
export function hasEnded(status: JobStatus): boolean {
  return ENDED.has(status);
}

/**
 * Sends a job's new entries as server-sent events, each with its `seq` as the event id (an EventSource that reconnects
 * sends it back as Last-Event-ID), found by polling the store: the same for SQLite and PostgreSQL, and for a job any
 * process runs. The entries before `afterSeq` are read too, not sent: the parts an entry changes (the timeline, the
 * totals) are rendered from the session up to it, of which the stream keeps what those parts need. A comment goes out
 * when the stream has been silent for `keepaliveMs`. Once the job's record has ended and its entries are out, the
 * stream closes after an event that says the job ended (its final outcome's, else `ending`), which stops the script;
 * for a job that had ended before the stream opened, that is at once. The viewer's access is asked again every
 * `recheckMs`, and the stream closes when it is gone. Resolves when it is closed.
 */
export async function streamEntries(response: ServerResponse, stream: EntryStream): Promise<void> {
  const now = stream.now ?? Date.now;
  const { timing, signal } = stream;
  response.writeHead(200, {
    ...SESSION_HEADERS,
    "content-type": "text/event-stream; charset=utf-8",
    // nginx and its kin hold a response back to buffer it unless told not to.
    "x-accel-buffering": "no",
  });
  let lastWrite = now();
  const write = (text: string) => {
    response.write(text);
    lastWrite = now();
  };
  // The browser waits this long before reconnecting after a dropped connection.
  write(`retry: 2000\n\n`);
  const session: StoredSessionEntry[] = [];
  let after = 0;
  let endedAt: number | undefined;
  let finalSent = false;
  let checkedAt = now();
  let first = true;
  while (!signal.aborted) {
    // The record first, then the entries: whatever was written before the job ended is in the read that follows.
    const job = await stream.jobs.get(stream.jobId);
    // A job that had ended before the stream opened has its entries written: nothing is on its way to wait for.
    if (endedAt === undefined && (!job || hasEnded(job.status))) endedAt = first ? Number.NEGATIVE_INFINITY : now();
    first = false;
    const rows = await stream.sessions.read(stream.jobId, { afterSeq: after, limit: PAGE });
    for (const row of rows) {
      const entry = storedEntry(row);
      after = row.seq;
      if (row.seq > stream.afterSeq) {
        const shown = [...session, entry];
        finalSent = sessionHasEnded(shown);
        write(await stream.message(entry, shown));
      }
      const kept = keptForParts(entry, session.length === 0);
      if (kept) session.push(kept);
    }
    if (rows.length === PAGE) continue;
    if (endedAt !== undefined && (finalSent || now() - endedAt >= timing.settleMs)) {
      if (!finalSent) write(stream.ending(session, job));
      break;
    }
    if (now() - checkedAt >= timing.recheckMs) {
      checkedAt = now();
      if (!(await stream.stillAllowed())) break;
    }
    if (now() - lastWrite >= timing.keepaliveMs) write(`: keepalive\n\n`);
    await pause(timing.pollMs, signal);
  }
  response.end();
}
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
