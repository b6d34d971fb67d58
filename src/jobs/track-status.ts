import { selectNeedsHuman } from "../pipeline/index.js";
import type { Attempt, LocatedFile, ProgressEvent, ReproductionReport, TaskOutcome, TestsReport } from "../pipeline/types.js";

/** A failure as the status comment shows it: the stage, the reason in plain words, and the next step. */
export interface FailureNote {
  stage: string;
  reason: string;
  nextStep: string;
  /** The run was stopped on purpose (the issue closed, the label removed), not by a fault. */
  cancelled?: boolean;
}

/** What the status comment of one run shows; built up from progress events. */
export interface StatusState {
  jobId: number;
  /** Who started the run and how, e.g. "@octocat added the label `magis`". */
  trigger: string;
  located?: LocatedFile[];
  taskCount?: number;
  developers?: { name: string; path: string }[];
  kickoffTurns?: number;
  /** Attempts per file so far, in the order tasks reported them. */
  attempts: { path: string; developer?: string; attempts: Attempt[]; outcome?: TaskOutcome }[];
  /** The repository's tests: the run before the change, then with it, or why they are not used. */
  tests?: TestsReport;
  /** The way the run takes and, on the dynamic way, the reproduction. */
  reproduction?: ReproductionReport;
  pullRequest?: { url: string; number: number; updated: boolean };
  /** Protected files the Manager says must change, which the bot left to a person (known once the run is done). */
  needsHuman?: string[];
  failure?: FailureNote;
  /** When the issue text the run works from was taken (the trigger); later edits are not read. */
  issueAsOf?: string;
  /** What the repository's config allows that its maintainers should know (see configWarnings). */
  warnings?: string[];
  /** The run's session page on the web role ({MAGIS_PUBLIC_URL}/jobs/<id>), when the page is on. */
  sessionUrl?: string;
}

/** The state of a run that has just started. */
export function startStatus(jobId: number, trigger: string): StatusState {
  return { jobId, trigger, attempts: [] };
}

/** Folds one pipeline progress event into the status (pure; returns a new state). */
export function trackProgress<S extends StatusState>(state: S, event: ProgressEvent): S {
  switch (event.stage) {
    case "located":
      return { ...state, located: event.files };
    case "tasks":
      return { ...state, taskCount: event.tasks.length };
    case "team":
      return {
        ...state,
        developers: event.developers.map((d) => ({ name: d.name, path: d.path })),
        attempts: event.developers.map((d) => ({ path: d.path, developer: d.name, attempts: [] })),
      };
    case "kickoff":
      return { ...state, kickoffTurns: event.transcript.length };
    case "tests":
      return { ...state, tests: event.tests };
    case "reproduction":
      return { ...state, reproduction: event.reproduction };
    case "attempt":
      return { ...state, attempts: upsert(state.attempts, event.path, (t) => ({ ...t, attempts: [...t.attempts, event.attempt] })) };
    case "task-done":
      return {
        ...state,
        attempts: upsert(state.attempts, event.outcome.path, (t) => ({
          ...t,
          developer: t.developer ?? event.outcome.developer.name,
          attempts: event.outcome.attempts,
          outcome: event.outcome,
        })),
      };
    case "done":
      return { ...state, needsHuman: selectNeedsHuman(event.result.setAside).map((f) => f.path) };
    case "plan":
      return state;
  }
}

function upsert(
  tasks: StatusState["attempts"],
  path: string,
  change: (task: StatusState["attempts"][number]) => StatusState["attempts"][number],
): StatusState["attempts"] {
  const found = tasks.some((t) => t.path === path);
  const list = found ? tasks : [...tasks, { path, attempts: [] }];
  return list.map((t) => (t.path === path ? change(t) : t));
}
