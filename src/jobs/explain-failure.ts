import fs from "node:fs";
import { ConfigError } from "../config.js";
import { UnpricedModelError } from "../llm/cost-errors.js";
import { BudgetExceededError, LlmError } from "../llm/errors.js";
import { StageError } from "../pipeline/errors.js";
import { redactSecrets } from "../lib/redact-secrets.js";
import type { FailureNote } from "./track-status.js";

/** How the maintainer runs the job again: the command, and a sentence saying where and how. */
export interface Rerun {
  command: string;
  howTo: string;
}

/** Running an issue's job again. */
export const RETRY_ISSUE: Rerun = {
  command: "/magis retry",
  howTo: "Comment `/magis retry` on this issue to run again (anything after it on the line is passed on as guidance).",
};

/** Running a pull request's revision again. */
export const REVISE_PULL_REQUEST: Rerun = {
  command: "/magis revise",
  howTo:
    "Comment `/magis revise` on this pull request to run the revision of the latest review again, or `/magis revise <what to change>` to give new guidance.",
};

/** What a failure note must not show, and how the job is run again. */
export interface FailureContext {
  /** Values removed from the note (the installation token). */
  secrets: readonly (string | undefined)[];
  /** Folders of the machine the app runs on (where checkouts go): a note names them `<work folder>`, never their path. */
  hostPaths?: readonly string[];
  /** How the job is run again (an issue's `/magis retry`, a pull request's `/magis revise`); default RETRY_ISSUE. */
  rerun?: Rerun;
}

/**
 * Turns whatever stopped a run into what the status comment says: the stage, the reason in plain words,
 * and the next step. `stage` is the stage the run was in, for errors that do not name one. Secrets and the machine's
 * folders are removed: the note is public.
 */
export function explainFailure(error: unknown, stage: string, context: FailureContext): FailureNote {
  const note = describe(error, stage, context.rerun ?? RETRY_ISSUE);
  const clean = (text: string) => hideHostPaths(redactSecrets(text, context.secrets), context.hostPaths ?? []);
  return { stage: note.stage, reason: clean(note.reason), nextStep: clean(note.nextStep) };
}

/** The text with each of `folders` (and its real path) written as `<work folder>`; the longest first, so none is cut. */
function hideHostPaths(text: string, folders: readonly string[]): string {
  const spellings = folders.flatMap((folder) => [folder, realPathOf(folder)]).filter((folder) => folder.length > 1);
  let out = text;
  for (const folder of [...new Set(spellings)].sort((a, b) => b.length - a.length)) out = out.split(folder).join("<work folder>");
  return out;
}

function realPathOf(folder: string): string {
  try {
    return fs.realpathSync(folder);
  } catch {
    return folder;
  }
}

function describe(error: unknown, stage: string, rerun: Rerun): FailureNote {
  const again = `\`${rerun.command}\``;
  const llm = findInChain(error, LlmError);
  const named = error instanceof StageError ? error.stage : stage;
  if (llm instanceof BudgetExceededError || llm?.kind === "budget") {
    return {
      stage: named,
      reason: `The ${llm.agent} ran out of token budget: ${llm.what}.`,
      nextStep: `Raise \`token_budget\` in \`.github/magis.yml\` (or MAGIS_TOKEN_BUDGET where the app runs), then comment ${again}.`,
    };
  }
  if (llm?.kind === "cost") {
    return { stage: named, reason: `The ${llm.agent} ran out of cost budget: ${llm.what}.`, nextStep: `${llm.todo} Then comment ${again}.` };
  }
  const unpriced = findInChain(error, UnpricedModelError);
  if (unpriced) return { stage: named, reason: `${unpriced.what}.`, nextStep: `${unpriced.todo} Then comment ${again}.` };
  if (llm) {
    return {
      stage: named,
      reason: `The ${llm.agent}'s call to the model (prompt \`${llm.prompt}\`, model \`${llm.model}\`) failed: ${llm.what}.`,
      nextStep: `${llm.todo} Then comment ${again}.`,
    };
  }
  if (error instanceof StageError) return { stage: error.stage, reason: error.message, nextStep: error.nextStep };
  if (error instanceof ConfigError) {
    return { stage: "config", reason: error.message, nextStep: `Fix \`.github/magis.yml\` on the default branch, then comment ${again}.` };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { stage, reason: message.length > 600 ? `${message.slice(0, 600)}…` : message, nextStep: rerun.howTo };
}

// Stages wrap the errors of the parts they call; the cause keeps the original with its advice.
function findInChain<T>(error: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof type) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
