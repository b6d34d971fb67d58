import { fence } from "../../lib/markdown.js";
import type { ReproductionScript, TestRun } from "../types.js";
import { describeExit } from "./describe-test-verdict.js";
import type { ChangedFile, Workbench } from "./open-workbench.js";

/** The most characters of a script the agents read (the script runs whole). */
const SCRIPT_CHARS = 6_000;
/** The most characters of a run's output the agents read: its end, where the error is. */
const OUTPUT_CHARS = 2_500;
/** The most characters of a script's path and command the agents read (a path or a command line is short). */
export const COMMAND_CHARS = 500;
/** The most characters of a verdict's reason, or of what the Reproducer expected, that go back into a prompt. */
export const REASON_CHARS = 2_000;

/** The reproduction the Developers work against: the workbench it runs in, the script and its failing run. */
export interface ReproductionBench {
  workbench: Workbench;
  script: ReproductionScript;
  before: TestRun;
}

/** The reproduction's run with these changes (and the script itself), in the workbench. */
export function runReproduction(workbench: Workbench, script: ReproductionScript, changes: readonly ChangedFile[]): Promise<TestRun> {
  // The script is written last: it wins over a change to the same file.
  const file: ChangedFile = { path: script.path, after: script.content, encoding: "utf-8" };
  return workbench.run(script.command, [...changes.filter((c) => c.path !== script.path), file]);
}

/** The reproduction as a Developer and the QA Engineer read it: the script, and what it printed on the untouched code. */
export function describeReproductionForModel(reproduced: { script: ReproductionScript; before: TestRun }): string {
  const { script, before } = reproduced;
  return [
    `The Reproducer's script \`${cutText(script.path, COMMAND_CHARS)}\`, run with \`${cutText(script.command, COMMAND_CHARS)}\` from the repository's root, shows the issue:`,
    describeScript(script),
    "",
    `On the untouched code it ${describeRun(before)}`,
    "",
    "It runs after every attempt, with the change: the issue is fixed when it passes (exit 0).",
  ].join("\n");
}

/** A script's text as a model reads it: fenced, and cut after SCRIPT_CHARS characters. */
export function describeScript(script: ReproductionScript): string {
  return fence(cutText(script.content));
}

/** A text of the Reproducer's as a prompt holds it: whole up to `max` characters, then cut, saying how much more there was. */
export function cutText(text: string, max = SCRIPT_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
}

/** A run of the reproduction in a few lines for a model: how it ended, and the end of what it printed. */
export function describeRun(run: TestRun): string {
  const tail = run.tail.trim() === "" ? "(it printed nothing)" : fence(run.tail.length > OUTPUT_CHARS ? `…${run.tail.slice(-OUTPUT_CHARS)}` : run.tail, "text");
  return `${describeExit(run)} after ${(run.durationMs / 1000).toFixed(1)} s, printing:\n${tail}`;
}
