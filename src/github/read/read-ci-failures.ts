import { cleanOutput } from "../../lib/clean-text.js";
import { readTestOutput } from "../../lib/read-test-output.js";
import { readJobLogTail } from "./read-job-log-tail.js";
import type { Octokit } from "../types.js";

/** One check that failed on a commit: what the CI said, cleaned and bounded, and whether it looks unrelated to the change. */
export interface CiFailure {
  name: string;
  conclusion: string;
  title: string;
  summary: string;
  annotations: { path: string; line: number | null; level: string; message: string }[];
  /** The end of the job's log (GitHub Actions jobs only), without timestamps, ANSI codes and secrets. */
  logTail: string;
  /** Why the failure looks like the CI's own trouble (runner lost, network), or absent when it looks like the code's. */
  unrelated?: string;
  url: string;
}

// Bounds: enough to say what failed, small enough for the Manager's prompt with several checks.
const MAX_CHECKS = 8;
const MAX_ANNOTATIONS = 30;
const MAX_SUMMARY_CHARS = 2_000;
const MAX_MESSAGE_CHARS = 500;
const MAX_LOG_CHARS = 6_000;
const MAX_LOG_LINES = 120;

/**
 * Signs that the CI itself failed rather than the change: what a runner, a package manager or git prints when the
 * machine or the network lets it down. Errors a test could raise itself (a reset socket, a timeout) are not among
 * them, nor is a job stopped at its time limit: the change may be what hangs.
 */
const INFRASTRUCTURE: [RegExp, string][] = [
  [/runner has received a shutdown signal|lost communication with the server|The hosted runner .* lost/i, "the runner was lost"],
  [/No space left on device/i, "the runner ran out of disk"],
  [/Could not resolve host|Temporary failure in name resolution|fatal: unable to access '[^']*'|getaddrinfo EAI_AGAIN/i, "a network error"],
  [
    /npm (?:ERR!|error) (?:code )?E(?:CONNRESET|TIMEDOUT|AI_AGAIN|NOTFOUND)|npm (?:ERR!|error) network|pip\._vendor\.urllib3\.exceptions|Max retries exceeded with url|Failed to fetch https?:/i,
    "a download failed while installing",
  ],
  [/\b(?:502 Bad Gateway|503 Service Unavailable|504 Gateway Time-?out)\b|API rate limit exceeded/i, "a service the CI needs did not answer"],
];

/**
 * The failed checks of a commit (failure or timed out, the latest run of each): name, title, summary, annotations,
 * and for GitHub Actions jobs the end of the log. All of it is the repository's (or its CI's) text, so it is cleaned
 * like a comment and redacted before anything reads it.
 */
export async function readCiFailures(
  octokit: Octokit,
  repo: { owner: string; repo: string },
  sha: string,
  secrets: (string | undefined)[] = [],
): Promise<CiFailure[]> {
  const failed = await listFailedChecks(octokit, repo, sha);
  // The start of a title or summary says the most; of a log, the end.
  const tidy = async (text: string | null | undefined, max: number, keep: "start" | "end" = "start") => {
    const clean = await cleanOutput(text ?? "", secrets);
    if (clean.length <= max) return clean;
    return keep === "start" ? `${clean.slice(0, max)}…` : `…${clean.slice(-max)}`;
  };
  const failures: CiFailure[] = [];
  for (const run of failed) {
    const annotations =
      (run.output.annotations_count ?? 0) > 0
        ? await Promise.all(
            (await octokit.rest.checks.listAnnotations({ ...repo, check_run_id: run.id, per_page: MAX_ANNOTATIONS })).data
              .filter((a) => a.annotation_level !== "notice")
              .map(async (a) => ({
                path: a.path,
                line: a.start_line ?? null,
                level: a.annotation_level ?? "failure",
                message: await tidy(a.message, MAX_MESSAGE_CHARS),
              })),
          )
        : [];
    // A check run of GitHub Actions is a job, with the same id; other CI apps keep their logs elsewhere.
    const log = run.app?.slug === "github-actions" ? await readLog(octokit, repo, run.id) : "";
    const logTail = await tidy(lastLines(withoutTimestamps(log), MAX_LOG_LINES), MAX_LOG_CHARS, "end");
    const failure: CiFailure = {
      name: await tidy(run.name, 200),
      conclusion: run.conclusion!,
      title: await tidy(run.output.title, 300),
      summary: await tidy(run.output.summary, MAX_SUMMARY_CHARS),
      annotations,
      logTail,
      url: run.html_url ?? "",
    };
    const unrelated = lookUnrelated(failure);
    failures.push(unrelated ? { ...failure, unrelated } : failure);
  }
  return failures;
}

/** The failed (or timed-out) check runs of a commit, the latest of each, at most MAX_CHECKS: what their names say. */
export async function listFailedChecks(octokit: Octokit, repo: { owner: string; repo: string }, sha: string) {
  const runs = await octokit.paginate(octokit.rest.checks.listForRef, { ...repo, ref: sha, filter: "latest", per_page: 100 });
  return runs.filter((r) => r.conclusion === "failure" || r.conclusion === "timed_out").slice(0, MAX_CHECKS);
}

/**
 * Why a failure looks like the CI's own trouble, from its log, title and summary; undefined when nothing says so, or
 * when the failure points at the code: an annotation of level failure, or failing tests in its log.
 */
export function lookUnrelated(failure: Pick<CiFailure, "title" | "summary" | "logTail" | "annotations">): string | undefined {
  if (failure.annotations.some((a) => a.level === "failure")) return undefined;
  const tests = readTestOutput(failure.logTail);
  if (tests.failures.length > 0 || (tests.counts?.failed ?? 0) > 0) return undefined;
  const text = [failure.title, failure.summary, failure.logTail].join("\n");
  return INFRASTRUCTURE.find(([pattern]) => pattern.test(text))?.[1];
}

async function readLog(octokit: Octokit, repo: { owner: string; repo: string }, jobId: number): Promise<string> {
  try {
    return (await readJobLogTail(octokit, repo, jobId)).text;
  } catch (error) {
    // The log is a help, not a need: its check's title, summary and annotations still say what failed.
    return `(the job's log could not be read: ${error instanceof Error ? error.message : String(error)})`;
  }
}

// Actions logs start every line with an ISO timestamp, which only costs tokens.
function withoutTimestamps(log: string): string {
  return log.replace(/^\uFEFF?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/gm, "");
}

function lastLines(text: string, count: number): string {
  const lines = text.trimEnd().split("\n");
  return lines.slice(-count).join("\n");
}
