import type { TestRun, TestVerdict } from "../../pipeline/types.js";
import type { CommandEntry } from "../types.js";
import { formatDuration } from "./format.js";
import { showText } from "./show-text.js";

/** How much of a command's output the page shows (the recorder keeps the tail; this bounds the page). */
const OUTPUT_CHARS = 20_000;

/** One line of a run: its outcome, exit status and duration. */
function runLine(run: Pick<TestRun, "outcome" | "exitCode" | "durationMs">): string {
  const exit = run.exitCode === null ? "no exit status" : `exit ${run.exitCode}`;
  return `<span class="${run.outcome}">${run.outcome}</span> · ${exit} · ${formatDuration(run.durationMs)}`;
}

/** The end of a run's output, collapsed, and cut from the front so that its last lines (where failures show) stay. */
function output(tail: string): string {
  if (tail === "") return `<p class="meta">No output.</p>`;
  const cut = tail.length > OUTPUT_CHARS;
  const kept = cut ? tail.slice(-OUTPUT_CHARS) : tail;
  const note = cut ? `<span class="cut">… the first ${(tail.length - OUTPUT_CHARS).toLocaleString("en")} characters not shown</span>\n` : "";
  return `<pre class="output">${note}${showText(kept)}</pre>`;
}

/** A repository command as the session recorded it: the command, why it ran, where, how it ended and its output. */
export function renderCommand(command: CommandEntry): string {
  const purpose = command.purpose ? ` <span class="meta">(${showText(command.purpose, 200)})</span>` : "";
  return `<details class="command"><summary><code>${showText(command.command, 2000)}</code>${purpose} · ${runLine(command)} · ${showText(command.sandbox, 100)}</summary>${output(command.tail)}</details>`;
}

/** A test or reproduction run: outcome, counts, failing tests and its output, under a label. */
export function renderRun(label: string, run: TestRun): string {
  const counts = run.counts ? ` · ${run.counts.passed} passed, ${run.counts.failed} failed, ${run.counts.skipped} skipped` : "";
  const failures = run.failures.length
    ? `<p>Failing: ${run.failures
        .slice(0, 50)
        .map((name) => `<code>${showText(name, 300)}</code>`)
        .join(", ")}</p>`
    : "";
  const error = run.error ? `<p class="error">${showText(run.error, 2000)}</p>` : "";
  return `<details class="run"><summary>${showText(label)}: ${runLine(run)}${counts}</summary>${error}${failures}${output(run.tail)}</details>`;
}

/** A run with a change against the run before it: the run, what newly fails, what it fixed, and why it may not be approved. */
export function renderVerdict(label: string, verdict: TestVerdict): string {
  const list = (title: string, names: string[]) =>
    names.length
      ? `<p>${title}: ${names
          .slice(0, 50)
          .map((name) => `<code>${showText(name, 300)}</code>`)
          .join(", ")}</p>`
      : "";
  const breaks = verdict.breaks ? `<p class="failed">${showText(verdict.breaks, 2000)}</p>` : "";
  return `${renderRun(label, verdict.run)}${list("Newly failing", verdict.newFailures)}${list("Fixed", verdict.fixed)}${breaks}`;
}
