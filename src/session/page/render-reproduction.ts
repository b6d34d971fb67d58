import type { ReproductionReport, TestsReport } from "../../pipeline/types.js";
import { renderEnvironment } from "./render-environment.js";
import { renderRun, renderVerdict } from "./render-run.js";
import { showText } from "./show-text.js";

/** The way the run took and, on the dynamic way, the scripts tried, the reproduction before the change and after it. */
export function renderReproduction(report: ReproductionReport): string {
  const parts = [`<h3>The ${report.choice.way} way</h3><p>${showText(report.choice.reason, 4000)}</p>`];
  if (report.reproducer) parts.push(`<p class="meta">Reproducer: ${showText(report.reproducer.name, 200)} — ${showText(report.reproducer.role, 1000)}</p>`);
  for (const attempt of report.attempts.slice(0, 20)) {
    const verdict = attempt.reproduced ? `<span class="passed">reproduced</span>` : `<span class="failed">not reproduced</span>`;
    parts.push(
      `<details><summary>Script ${attempt.number}: <code>${showText(attempt.script.path, 500)}</code> — ${verdict}</summary>` +
        `<p>${showText(attempt.reason, 4000)}</p><p>Run with <code>${showText(attempt.script.command, 1000)}</code>; expected: ${showText(attempt.script.expected, 2000)}</p>` +
        `<pre>${showText(attempt.script.content, 20_000)}</pre>${renderRun("Its run", attempt.run)}</details>`,
    );
  }
  if (report.reproduced) parts.push(renderRun("Reproduction before the change", report.reproduced.before));
  if (report.fallback) parts.push(`<p>Went the static way: ${showText(report.fallback, 4000)}</p>`);
  if (report.after) parts.push(renderRun("Reproduction after the change", report.after));
  if (report.kept !== undefined) parts.push(`<p class="meta">${report.kept ? "Kept in the change as a regression test." : "Not kept in the change."}</p>`);
  if (report.sandbox) parts.push(`<p class="meta">Ran ${showText(report.sandbox.label, 200)}: ${showText(report.sandbox.description, 1000)}</p>`);
  if (report.environment) parts.push(`<h4>Environment</h4>${renderEnvironment(report.environment)}`);
  return parts.join("");
}

/** The repository's tests: the command, the setup, the run before the change and the verdict with it, or why they were not used. */
export function renderTests(tests: TestsReport): string {
  const parts = [`<h3>Tests: <code>${showText(tests.command, 1000)}</code></h3>`];
  if (tests.skipped) parts.push(`<p>Not used: ${showText(tests.skipped, 4000)}</p>`);
  if (tests.sandbox) parts.push(`<p class="meta">Ran ${showText(tests.sandbox.label, 200)}: ${showText(tests.sandbox.description, 1000)}</p>`);
  if (tests.setupRun) parts.push(renderRun(`Setup ${tests.setup ?? ""}`.trim(), tests.setupRun));
  if (tests.before) parts.push(renderRun("Before the change", tests.before));
  if (tests.after) parts.push(renderVerdict("With the change", tests.after));
  if (tests.environment) parts.push(`<h4>Environment</h4>${renderEnvironment(tests.environment)}`);
  return parts.join("");
}
