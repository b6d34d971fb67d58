import { shownPaths } from "../../pipeline/index.js";
import type { PatchChange, PatchFile } from "../read-patch-hunks.js";
import { writeEditBlock } from "../../llm/write-edit-block.js";

/**
 * What a perfect model answers to one prompt of the pipeline, from the instance's gold patch: the gold files are the
 * relevant ones and the ones to change, the Manager's tasks describe the gold hunks, the Developer's ranges and new
 * code are the gold hunks, QA approves. `vars` are the prompt's variables as read back from the request.
 */
export function answerAsOracle(prompt: string, vars: Record<string, string>, gold: PatchFile[]): unknown {
  const file = gold.find((f) => f.path === vars.path);
  switch (prompt) {
    case "custodian-summarize-file":
      return { summary: `The file ${vars.path}.` };
    case "custodian-summarize-diff":
      return { message: `Changes ${vars.path}.` };
    case "custodian-judge-relevance":
      return {
        files: shownPaths(vars.files ?? "").map((path) => {
          const changed = gold.some((f) => f.path === path);
          return { path, reason: changed ? "The gold patch changes this file." : "The gold patch does not change this file.", relevant: changed };
        }),
      };
    case "manager-define-task":
      return file ? { description: describeTask(file), needs_change: true } : { description: "The gold patch does not change this file.", needs_change: false };
    case "manager-design-developer":
      return { name: `Developer of ${vars.path}`, role: `You change ${vars.path} exactly as your task says.` };
    case "manager-open-meeting":
    case "manager-close-meeting":
    case "developer-speak":
      return { speech: "Each task follows the gold patch; none depends on another." };
    case "developer-refine-role":
    case "developer-design-qa":
      return { role: `You check that ${vars.path} changes exactly as the task says.` };
    case "manager-make-plan":
      return { rationale: "The gold changes are independent.", steps: [[...(vars.tasks ?? "").matchAll(/^- `([^`]+)`:/gm)].map((m) => m[1]!)] };
    case "developer-locate-lines":
      return { path: vars.path, ranges: goldRanges(file?.changes ?? [], readNumbered(vars.numbered ?? "")).map((r) => ({ why: "a gold hunk", ...r })) };
    case "developer-write-code": {
      const replacement = applyWithin(file?.changes ?? [], Number(vars.start), (vars.old ?? "").split("\n")).join("\n");
      return writeEditBlock({ old: vars.old ?? "", new: replacement }, "The lines become those of the gold patch.");
    }
    case "qa-review":
      return { comment: "The change is the gold patch.", approved: true };
    case "manager-triage-feedback":
      return { tasks: [], declined: [] };
    default:
      throw new Error(`the oracle has no answer for the prompt "${prompt}"; add one to src/eval/oracle/answer-as-oracle.ts`);
  }
}

/**
 * The line ranges a Developer following the prompts gives for the gold changes: the lines a change replaces, or for
 * an insertion the line before it (line 1 at the top), widened to the nearest line with code when they are all blank
 * (`old` is never empty), and joined where they then overlap or touch.
 */
function goldRanges(changes: PatchChange[], lines: string[]): { start: number; end: number }[] {
  const ranges: { start: number; end: number }[] = [];
  for (const change of changes) {
    let start = change.removed.length > 0 ? change.start : Math.max(1, change.start);
    let end = change.removed.length > 0 ? change.end : start;
    const blank = () => lines.slice(start - 1, end).every((line) => line.trim() === "");
    while (blank() && start > 1) start--;
    while (blank() && end < lines.length) end++;
    const last = ranges[ranges.length - 1];
    if (last && start <= last.end + 1) last.end = Math.max(last.end, end);
    else ranges.push({ start, end });
  }
  return ranges;
}

/** `window`, the file's lines from `start` on, with every gold change that falls inside it made (bottom up, so numbers hold). */
function applyWithin(changes: PatchChange[], start: number, window: string[]): string[] {
  const lines = [...window];
  const end = start + window.length - 1;
  for (const change of [...changes].reverse()) {
    if (change.removed.length > 0 && change.start >= start && change.end <= end)
      lines.splice(change.start - start, change.end - change.start + 1, ...change.added);
    else if (change.removed.length === 0 && change.start >= start - 1 && change.start <= end) lines.splice(change.start - start + 1, 0, ...change.added);
  }
  return lines;
}

/** The file's lines from the numbered view (`  12 | code`). */
function readNumbered(numbered: string): string[] {
  return numbered.split("\n").map((line) => line.replace(/^\s*\d+ \|(?: |$)/, ""));
}

function describeTask(file: PatchFile): string {
  const parts = file.changes.map((c) => {
    const what = c.removed.length > 0 ? `replace lines ${c.start}-${c.end}` : `insert after line ${c.start}`;
    return `${what} with:\n${c.added.join("\n") || "(nothing: delete them)"}`;
  });
  return `Make the gold change to \`${file.path}\`: ${parts.join("\n\n")}`;
}
