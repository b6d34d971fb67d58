import type { Agent } from "../config.js";
import type { ProgressEvent, ResolveResult, TestRun } from "../pipeline/types.js";

/**
 * What a job's session records, entry by entry, in the order things happened (DESIGN.md §12). Every entry is plain
 * JSON; strings in it were redacted and bounded by the recorder before they were stored. The session page, the CLI's
 * `session.html` and `magis session export` read these and nothing else.
 */
export type SessionEntry =
  | { kind: "job"; data: SessionJob }
  | { kind: "stage"; data: { name: string; state: "started" | "ended" } }
  | { kind: "model-call"; data: ModelCallEntry }
  | { kind: "command"; data: CommandEntry }
  | { kind: "progress"; data: SessionProgress }
  | { kind: "result"; data: SessionResult }
  | { kind: "outcome"; data: SessionOutcome }
  | { kind: "plan-wait"; data: PlanWait }
  | { kind: "steer"; data: SteerEntry }
  | { kind: "question"; data: { question: string; author: string } }
  | { kind: "note"; data: { text: string } }
  /** Written once, when the session reached its bound: what was left out after it (only stages and the outcome are written then). */
  | { kind: "truncated"; data: { limitBytes: number } };

export type SessionEntryKind = SessionEntry["kind"];

/** An entry as read back: its number in the job's session and when it was made. */
export type StoredSessionEntry = SessionEntry & { seq: number; at: number };

/** What the session is of: written first. */
export interface SessionJob {
  /** The job's id in the store (0 for a CLI or eval run, which has no record). */
  id: number;
  /** `resolve-issue`, `revise-pull-request`, or the door's own (`cli`, `eval`). */
  jobKind: string;
  /** `owner/name`, or the checkout's folder for the CLI. */
  repository: string;
  number: number | null;
  title: string;
  /** The or pull request's page, when there is one. */
  url?: string;
}

/** One model call, from its trace record: what was asked, what came back, and what it cost. */
export interface ModelCallEntry {
  agent: Agent;
  prompt: string;
  promptHash: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  ms: number;
  /** The rendered prompt's messages, each bounded. */
  messages: { role: string; content: string }[];
  raw: string | null;
  parsed: unknown;
  choice?: number;
  error?: string;
  /** Dollars, when the operator's price table knows the model (src/llm/prices.ts). */
  usd?: number;
}

/** One repository command run in the sandbox (setup, tests, a reproduction, a candidate's check). */
export interface CommandEntry {
  /** What held it: the sandbox's short label ("bubblewrap"). */
  sandbox: string;
  command: string;
  /** Why it ran, when the caller said ("setup", "tests before", "reproduction", …). */
  purpose?: string;
  outcome: TestRun["outcome"];
  exitCode: number | null;
  durationMs: number;
  /** The end of its output, bounded and redacted. */
  tail: string;
}

/** A pipeline progress event as stored: every stage but `done` (whose result is the `result` entry). */
export type SessionProgress = Exclude<ProgressEvent, { stage: "done" }>;

/** What the run produced, as the session shows it: the patch as text and the usage (the rest came as progress). */
export interface SessionResult {
  patch: string;
  usage: ResolveResult["usage"];
  environment?: ResolveResult["environment"];
  /** Dollars in all, when every model used has a price. */
  usd?: number;
}

/** How the job ended, as its record says. */
export interface SessionOutcome {
  status: "succeeded" | "failed" | "cancelled" | "handed-back" | "asked" | "waiting";
  detail: string;
  stage?: string;
  /** The pull request, when one was opened or updated. */
  pullRequest?: string;
}

/** The job waits for someone allowed to trigger to approve its plan (`plan_approval: true`). */
export interface PlanWait {
  /** When it stops waiting and ends (milliseconds since the epoch). */
  until: number;
  /** The plan and the tasks as the status comment shows them (Markdown). */
  summary: string;
}

/** Someone steered the job: approved the plan (with guidance) or stopped it, from the page or a comment. */
export interface SteerEntry {
  action: "go" | "stop";
  by: string;
  guidance?: string;
  via: "comment" | "page";
}
