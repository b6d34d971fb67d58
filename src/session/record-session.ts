import { redactSecrets } from "../lib/redact-secrets.js";
import type { ModelPrices } from "../llm/prices.js";
import type { NewSessionRow } from "../store/sessions.js";
import { fitEntry, type FittedEntry } from "./record/fit-entry.js";
import { priceEntry } from "./record/price-entry.js";
import type { SessionEntry, SessionEntryKind } from "./types.js";

/**
 * The bounds of a session, in characters of JSON (about bytes: the text is mostly ASCII). A prompt's message or any one
 * string keeps 16,000, an entry 64,000 (the result's patch may take all of that), a whole session 8,000,000: a job of
 * 200 model calls of 40,000 characters each fits, and a flood (a 5 MB diff, a looping test's output) costs no more.
 */
export const SESSION_BOUNDS = { stringChars: 16_000, entryChars: 64_000, sessionChars: 8_000_000 } as const;

/** How often queued entries go to the sink, at least (milliseconds). */
export const FLUSH_MS = 250;

/** What a recorder is made with. */
export interface RecorderOptions {
  /** Where entries go, in batches and in order (a job's `store.sessions.append`, or a memory sink). */
  sink: (rows: NewSessionRow[]) => Promise<void>;
  /** Values removed from every string of every entry (the installation token, the model's key), beside the shapes of credentials. */
  secrets: readonly (string | undefined)[];
  /** The clock each entry is stamped with (milliseconds since the epoch). */
  now: () => number;
  /** The whole session's bound (default SESSION_BOUNDS.sessionChars). */
  maxBytes?: number;
  /** One entry's bound (default SESSION_BOUNDS.entryChars); one string's is the smaller of it and 16,000. */
  maxEntryBytes?: number;
  /** The operator's price table: model calls and the result get their dollars from it. */
  prices?: ModelPrices;
  /** Told the first time the sink fails or an entry cannot be recorded (later failures are not told again); the job goes on either way. */
  onSinkError?: (error: unknown) => void;
}

// What a session full up still records: how the job went and what it waits for, not what it did in detail.
const KEPT_WHEN_FULL: ReadonlySet<SessionEntryKind> = new Set(["stage", "outcome", "plan-wait", "steer", "question", "result"]);

/**
 * A job's session as it runs: `record` is synchronous and never throws, so any part of a job can call it in passing;
 * entries are redacted and bounded at once (see fitEntry), stamped, queued, and handed to the sink in order, in batches,
 * at least every FLUSH_MS and on `flush` or `close`. When the session reaches its bound it records one `truncated` entry
 * and from then on only the entries of KEPT_WHEN_FULL. A sink that fails is reported once and never fails the job: a
 * session is what a person reads about a job, not part of its work.
 */
export class SessionRecorder {
  private queue: NewSessionRow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();
  private written = 0;
  private full = false;
  private closed = false;
  private told = false;
  private readonly maxBytes: number;
  private readonly bounds: { stringChars: number; entryChars: number };

  constructor(private readonly options: RecorderOptions) {
    this.maxBytes = options.maxBytes ?? SESSION_BOUNDS.sessionChars;
    const entryChars = Math.min(options.maxEntryBytes ?? SESSION_BOUNDS.entryChars, this.maxBytes);
    this.bounds = { entryChars, stringChars: Math.min(SESSION_BOUNDS.stringChars, entryChars) };
  }

  /** Characters of JSON recorded so far (what the sink was given or will be). */
  get bytes(): number {
    return this.written;
  }

  /** Whether the session reached its bound (and now records only stages, the outcome and steering). */
  get truncated(): boolean {
    return this.full;
  }

  /** Records one entry; after `close`, nothing. */
  record(entry: SessionEntry): void {
    if (this.closed) return;
    const at = this.options.now();
    try {
      if (this.full && !KEPT_WHEN_FULL.has(entry.kind)) return;
      const fitted = fitEntry(priceEntry(entry, this.options.prices), this.options.secrets, this.bounds);
      if (!this.full && this.written + fitted.json.length > this.maxBytes - this.reserve()) {
        this.full = true;
        this.push({ kind: "truncated", json: JSON.stringify({ limitBytes: this.maxBytes }) }, at);
        if (!KEPT_WHEN_FULL.has(entry.kind)) return;
      }
      // Past the bound only the outcome still goes in: a session that does not say how its job ended misleads.
      if (this.written + fitted.json.length > this.maxBytes && entry.kind !== "outcome") return;
      this.push(fitted, at);
    } catch (error) {
      this.tell(error);
    }
  }

  /** Hands every queued entry to the sink; resolves once the sink took them (or failed). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.queue.splice(0);
    if (rows.length > 0) this.sending = this.sending.then(() => this.send(rows));
    return this.sending;
  }

  /** Flushes and stops recording: what comes after is dropped. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  // Room kept, once the bound is near, for what a full session still records (stages, the result, the outcome).
  private reserve(): number {
    return Math.min(Math.floor(this.maxBytes / 4), 4 * this.bounds.entryChars);
  }

  private push(fitted: FittedEntry, at: number): void {
    this.written += fitted.json.length;
    this.queue.push({ at, kind: fitted.kind, data: fitted.json });
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
      // A recorder nobody closed must not keep the process alive.
      this.timer.unref();
    }
  }

  private async send(rows: NewSessionRow[]): Promise<void> {
    try {
      await this.options.sink(rows);
    } catch (error) {
      this.tell(error);
    }
  }

  private tell(error: unknown): void {
    if (this.told) return;
    this.told = true;
    try {
      this.options.onSinkError?.(new Error(redactSecrets(error instanceof Error ? error.message : String(error), this.options.secrets)));
    } catch {
      // A logger that throws is no reason to fail the job either.
    }
  }
}

/** A recorder that keeps nothing: for a job whose door has no session store. */
export function discardingRecorder(now: () => number): SessionRecorder {
  const recorder = new SessionRecorder({ sink: async () => {}, secrets: [], now });
  void recorder.close();
  return recorder;
}
