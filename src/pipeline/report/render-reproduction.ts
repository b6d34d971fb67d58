import { codeCell, details, fence, neutralize } from "../../lib/markdown.js";
import { endSentence } from "../../lib/end-sentence.js";
import { describeExit } from "../tests/describe-test-verdict.js";
import type { ReproductionReport, TestRun } from "../types.js";

/**
 * The pull request's "Reproduction" section: the way the run took and why; on the dynamic way the script, its output on
 * the untouched code and with the change, and the verdict; when the issue was not reproduced, why, with the scripts tried.
 */
export function renderReproduction(report: ReproductionReport): string {
  const { choice } = report;
  const lines = ["### Reproduction", ""];
  if (choice.way === "static") {
    lines.push(`The static way: the change was made by reading the code, with no reproduction (${neutralize(choice.reason)}).`);
    return lines.join("\n");
  }
  const who = report.reproducer ? `**${neutralize(report.reproducer.name)}**, the Reproducer` : "The Reproducer";
  lines.push(`The Manager chose the dynamic way: ${neutralize(choice.reason)}`, "");
  if (!report.reproduced) {
    lines.push(`The issue was not reproduced, so the run went the static way: ${neutralize(report.fallback ?? "no script showed it")}.`);
    if (report.attempts.length > 0) lines.push("", details("Scripts tried", renderTried(report)));
    return lines.join("\n");
  }
  const { script, before } = report.reproduced;
  const verdict = !report.after
    ? "It was not run with the whole change."
    : report.after.outcome === "passed"
      ? `With the change it ${describeExit(report.after)}: **the issue is gone**.`
      : `> **Warning:** with the change it still ${describeExit(report.after)}: the issue still shows. Review the change closely.`;
  lines.push(
    `${who}, wrote \`${codeCell(script.path)}\` (run with \`${codeCell(script.command)}\`), which ${describeExit(before)} on the untouched code as the issue says: ${endSentence(neutralize(script.expected))}`,
    "",
    verdict,
  );
  if (report.sandbox) lines.push("", `The scripts ran ${neutralize(report.sandbox.description)}.`);
  if (report.kept) lines.push("", `It is part of this change as a regression test (\`keep_reproduction: test\`).`);
  lines.push("", details(`The script \`${codeCell(script.path)}\``, fence(script.content, languageOf(script.path))));
  lines.push("", details("Its output on the untouched code", outputOf(before)));
  if (report.after) lines.push("", details("Its output with the change", outputOf(report.after)));
  return lines.join("\n");
}

function renderTried(report: ReproductionReport): string {
  return report.attempts
    .map((a) =>
      [
        `**Script ${a.number}**: \`${codeCell(a.script.path)}\` (\`${codeCell(a.script.command)}\`) ${describeExit(a.run)}; not a reproduction: ${neutralize(a.reason)}`,
        "",
        fence(a.script.content, languageOf(a.script.path)),
        "",
        outputOf(a.run),
      ].join("\n"),
    )
    .join("\n\n");
}

function outputOf(run: TestRun): string {
  return run.tail.trim() === "" ? "(no output)" : fence(run.tail, "text");
}

const LANGUAGES: Record<string, string> = {
  py: "python",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  ts: "typescript",
  sh: "sh",
  rb: "ruby",
  go: "go",
};

function languageOf(path: string): string {
  return LANGUAGES[path.split(".").at(-1) ?? ""] ?? "";
}
