import { TailBuffer } from "../../lib/tail-buffer.js";
import type { Octokit } from "../types.js";

/** The end of a GitHub Actions job's log, and how much of the log there was. */
export interface LogTail {
  /** The last `keepBytes` of the log, decoded as UTF-8 (raw: not cleaned or redacted yet). */
  text: string;
  /** Bytes received; less than the log's size when the server sent only its end (a range) or the read was cut. */
  bytesRead: number;
  /** Whether the log was longer than what is kept. */
  cut: boolean;
}

/** Bounds of one log read. */
export interface LogTailOptions {
  keepBytes?: number;
  /** Most bytes read before giving up on reaching the end (a log the server will not send as a range). */
  maxBytes?: number;
  timeoutMs?: number;
}

/**
 * Reads the end of an Actions job's log. The API answers with a redirect to a signed download URL, which is followed
 * by hand so that the token is never sent to the download host and the log is never taken whole into memory: the
 * request asks for the last bytes only (a range), and a server that sends the whole log anyway is read as a stream of
 * which only the tail is kept.
 */
export async function readJobLogTail(octokit: Octokit, repo: { owner: string; repo: string }, jobId: number, options: LogTailOptions = {}): Promise<LogTail> {
  const keep = options.keepBytes ?? 64 * 1024;
  const max = options.maxBytes ?? 256 * 1024 * 1024;
  const redirect = await octokit.request("GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs", { ...repo, job_id: jobId, request: { redirect: "manual" } });
  const location = (redirect.headers as Record<string, string | undefined>).location;
  if (!location) throw new Error(`GitHub gave no download address for the log of job ${jobId} (status ${redirect.status})`);
  const response = await fetch(location, { headers: { range: `bytes=-${keep}` }, signal: AbortSignal.timeout(options.timeoutMs ?? 60_000) });
  if (!response.ok || !response.body) throw new Error(`the log of job ${jobId} could not be downloaded (status ${response.status})`);
  const tail = new TailBuffer(keep);
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      tail.push(value);
      if (tail.total >= max) break;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const bytesRead = tail.total;
  const range = response.status === 206 ? /\/(\d+)$/.exec(response.headers.get("content-range") ?? "") : null;
  const cut = bytesRead > keep || bytesRead >= max || (range !== null && Number(range[1]) > bytesRead);
  const text = tail.text(cut);
  return { text, bytesRead, cut };
}
