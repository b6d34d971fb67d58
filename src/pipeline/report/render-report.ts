import type { LocatedFile, ResolveResult, TaskOutcome } from "../types.js";
import { describeSetAside } from "./describe-set-aside.js";
import { cell, codeCell, details, fence, neutralize, table } from "../../lib/markdown.js";
import { describeAttemptTests } from "../tests/describe-test-verdict.js";
import { renderEnvironment } from "./render-environment.js";
import { renderTests } from "./render-tests.js";
import { renderReproduction } from "./render-reproduction.js";
import { renderCandidates } from "./render-candidates.js";
import { renderUsage } from "./render-usage.js";
import type { ModelPrices } from "../../llm/prices.js";
import { describeAttemptReproduction } from "./describe-attempt-reproduction.js";
import { selectNeedsHuman } from "./select-needs-human.js";

/** What the report needs besides the result: the issue it resolves and how the run was made. */
export interface ReportMeta {
  title: string;
  /** Issue number for a pull request's "Fixes #N" ("Part of #N" while protected files need a human); absent on local runs. */
  issueNumber?: number;
  /** A line shown under the title, e.g. that the model was scripted. */
  note?: string;
  /** The run's session page (every model call, command and diff), linked under the summary; absent when the page is off. */
  sessionUrl?: string;
  /** The operator's price table (MAGIS_MODEL_PRICES): the usage table shows dollars for the models it prices. */
  prices?: ModelPrices;
}

/** The run as Markdown: the future pull request description, with the long parts collapsible. */
export function renderReport(result: ResolveResult, meta: ReportMeta): string {
  return (
    [
      renderSummary(result, meta),
      ...renderNeedsHuman(result),
      ...(result.environment ? [renderEnvironment(result.environment)] : []),
      ...(result.tests ? [renderTests(result.tests)] : []),
      ...(result.reproduction ? [renderReproduction(result.reproduction)] : []),
      renderPlan(result),
      renderTasks(result),
      details("Kick-off meeting transcript", renderTranscript(result)),
      details("QA reviews, attempt by attempt", renderReviews(result)),
      details("Located files", renderLocated(result)),
      details("Usage", renderUsage(result.usage, meta.prices)),
    ].join("\n\n") + "\n"
  );
}

function renderSummary(result: ResolveResult, meta: ReportMeta): string {
  const kept = result.outcomes.filter((o) => o.kept);
  const approved = result.outcomes.filter((o) => o.approved).length;
  const unapproved = kept.filter((o) => !o.approved);
  const forHuman = selectNeedsHuman(result.setAside);
  const lines = [`## MAGIS: ${neutralize(meta.title.trim())}`, ""];
  if (meta.issueNumber !== undefined) lines.push(`${forHuman.length > 0 ? "Part of" : "Fixes"} #${meta.issueNumber}`, "");
  if (meta.note) lines.push(`> ${neutralize(meta.note)}`, "");
  if (meta.sessionUrl) lines.push(`[Session](${meta.sessionUrl}): what each agent did in this run, model call by model call.`, "");
  lines.push(
    `Changes ${kept.length} file${kept.length === 1 ? "" : "s"} (${kept.map((o) => `\`${o.path}\``).join(", ")}). ` +
      `The QA Engineers approved ${approved} of ${result.outcomes.length} task${result.outcomes.length === 1 ? "" : "s"}.`,
  );
  if (forHuman.length > 0) {
    lines.push(
      "",
      `> **Not a complete fix:** the issue also needs changes in ${forHuman.length} protected file${forHuman.length === 1 ? "" : "s"} (${forHuman.map((f) => `\`${f.path}\``).join(", ")}), which the bot never changes. See *Needs a human* below.`,
    );
  }
  if (unapproved.length > 0) {
    lines.push("", `> **Warning:** kept without QA approval (keep_unapproved): ${unapproved.map((o) => `\`${o.path}\``).join(", ")}. Review these closely.`);
  }
  return lines.join("\n");
}

// The Manager's words only: a diff for a protected file, written by a model an issue may have steered, is what a busy
// reviewer would apply without reading.
function renderNeedsHuman(result: ResolveResult): string[] {
  const forHuman = selectNeedsHuman(result.setAside);
  if (forHuman.length === 0) return [];
  const items = forHuman.map((f) => `- \`${f.path}\`: ${neutralize(f.description.trim())}`);
  return [
    [
      "### Needs a human",
      "",
      "These files match `protected_paths` in `.github/magis.yml`, so the bot did not change them. The Manager says they must change as follows; check that the issue really calls for it before making the change by hand.",
      "",
      ...items,
    ].join("\n"),
  ];
}

function renderPlan(result: ResolveResult): string {
  const steps = result.plan.steps.map((step, i) => {
    const files = step.map((p) => `\`${p}\``).join(", ");
    return `${i + 1}. ${files}${step.length > 1 ? " (concurrently)" : ""}`;
  });
  const lines = ["### Plan", "", ...steps, "", neutralize(result.plan.rationale)];
  if (result.plan.note) lines.push("", `> **Note:** ${neutralize(result.plan.note)}`);
  return lines.join("\n");
}

function renderTasks(result: ResolveResult): string {
  const rows = result.outcomes.map((o) => {
    const task = result.tasks.find((t) => t.path === o.path);
    return [
      `\`${codeCell(o.path)}\``,
      cell(task?.description ?? ""),
      `**${cell(o.developer.name)}**: ${cell(o.developer.role)}`,
      String(o.attempts.length),
      verdict(o),
      o.kept ? (o.approved ? "yes" : "yes, **unapproved**") : "no",
    ];
  });
  return ["### Tasks", "", table(["File", "Task", "Developer role", "Attempts", "QA verdict", "Kept"], rows)].join("\n");
}

function verdict(outcome: TaskOutcome): string {
  if (outcome.approved) return "approved";
  const last = outcome.attempts[outcome.attempts.length - 1];
  return last?.error ? "no change (last attempt refused)" : "not approved";
}

function renderTranscript(result: ResolveResult): string {
  return result.transcript.map((turn) => `**${neutralize(turn.speaker)}**:\n\n> ${neutralize(turn.text.trim()).replace(/\n/g, "\n> ")}`).join("\n\n");
}

function renderReviews(result: ResolveResult): string {
  return result.outcomes
    .map((o) => {
      const attempts = o.attempts.map((a) => {
        const candidates = a.candidates ? `\n\n${indent(renderCandidates(a.candidates, a.number))}` : "";
        if (a.error) return `- **Attempt ${a.number}** — refused before review: ${neutralize(a.error)}${candidates}`;
        const head = a.review?.approved ? "approved" : "changes requested";
        const diff = a.diff ? `\n\n${indent(details(`Diff of attempt ${a.number}`, fence(a.diff, "diff")))}` : "";
        const tests =
          (a.tests ? ` Tests with it: ${describeAttemptTests(a.tests)}.` : "") +
          (a.reproduction ? ` The reproduction with it: ${describeAttemptReproduction(a)}.` : "") +
          (a.checkSkipped ? ` The language server did not check it: ${a.checkSkipped}.` : "");
        return `- **Attempt ${a.number}** — ${head}: ${neutralize(a.review?.comment ?? "")}${neutralize(tests)}${diff}${candidates}`;
      });
      const qa = o.qaRole ? `QA Engineer: ${neutralize(o.qaRole)}` : "No QA Engineer was needed.";
      return [`#### \`${o.path}\` (${neutralize(o.developer.name)})`, "", qa, "", ...attempts].join("\n");
    })
    .join("\n\n");
}

function indent(text: string): string {
  return text.replace(/^/gm, "  ");
}

/** The Custodian's reason, and the past commit like the issue that changed the file when the history weighed it up. */
function whyLocated(file: LocatedFile): string {
  const past = file.pastChange ? `changed by ${file.pastChange.oid.slice(0, 7)} "${file.pastChange.subject}", a past commit like this issue` : "";
  return [file.reason ?? "", past].filter((part) => part !== "").join("; ");
}

function renderLocated(result: ResolveResult): string {
  const rows = result.located.map((f) => {
    const managed = result.setAside.find((a) => a.path === f.path);
    if (!managed) return [`\`${codeCell(f.path)}\``, f.score.toFixed(2), f.kept === false ? "dropped" : "kept", cell(whyLocated(f))];
    return [
      `\`${codeCell(f.path)}\``,
      f.score.toFixed(2),
      managed.kind === "needs-human" ? "needs a human" : "dropped",
      cell(`Manager: ${describeSetAside(managed)}`),
    ];
  });
  return table(["File", "BM25 score", "Kept", "Why"], rows);
}
