import type { RequestTiming } from "../../src/github/client/time-requests.js";

/** A job phase's timing as the `job timings` log line gives it. */
export interface LoggedPhase {
  phase: string;
  wallMs: number;
}

/** The GitHub requests of an Action step's log (its `::debug::magis: GitHub request {…}` lines), in the order they ended. */
export function readRequestTimings(out: string): RequestTiming[] {
  return [...out.matchAll(/^::debug::magis: GitHub request (\{.*\})$/gm)].map((m) => JSON.parse(m[1]!) as RequestTiming);
}

/**
 * The requests from the publish phase's start to the job's end, one line each: when it was asked for, relative to
 * the phase's start; how long GitHub's pacing (Octokit's throttling) held it; how long the exchange took. The job's
 * clock starts right before the status comment's post (the trigger's reads come before it), so the phase starts that
 * much later.
 */
export function renderPublishTimeline(requests: RequestTiming[], phases: LoggedPhase[]): string[] {
  const publishAt = phases.findIndex((p) => p.phase === "publish");
  if (publishAt < 0 || requests.length === 0) return [];
  const post = requests.find((r) => r.method === "POST" && r.route === "/repos/{owner}/{repo}/issues/{issue_number}/comments");
  const jobStart = post?.askedAt ?? Math.min(...requests.map((r) => r.askedAt));
  const start = jobStart + phases.slice(0, publishAt).reduce((sum, p) => sum + p.wallMs, 0);
  const end = start + phases[publishAt]!.wallMs;
  const shown = requests.filter((r) => r.endedAt >= start).sort((a, b) => a.askedAt - b.askedAt);
  const lines = shown.map((r) => {
    const relative = Math.round(r.askedAt - start);
    const at = `${relative >= 0 ? "+" : ""}${relative}`.padStart(6);
    const phase = r.askedAt < end ? "publish" : "after  ";
    const wait = `paced ${String(r.sentAt - r.askedAt).padStart(4)} ms`;
    return `  ${at} ms ${phase} ${wait}, took ${String(r.endedAt - r.sentAt).padStart(4)} ms  ${r.method.padEnd(5)} ${r.route} ${r.status}`;
  });
  const paced = shown.filter((r) => r.askedAt < end).reduce((sum, r) => sum + r.sentAt - r.askedAt, 0);
  return [`  publish ${Math.round(end - start)} ms, of which ${paced} ms requests held by pacing:`, ...lines];
}
