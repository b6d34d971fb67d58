import { describe, expect, it } from "vitest";
import { capBody, CUT_NOTE, GITHUB_BODY_LIMIT } from "../../../../src/github/publish/fit-body.js";
import { readReportPartMarker, renderDescription, renderReportPart, REPORT_LAYOUT, splitReport } from "../../../../src/github/publish/split-report.js";
import { renderReport } from "../../../../src/pipeline/report/render-report.js";
import type { ResolveResult } from "../../../../src/pipeline/types.js";
import { sampleResult } from "../../pipeline/sample-result.js";

const PULL_URL = "https://github.com/an-organization-with-a-long-name/a-repository-with-a-rather-long-name-too/pull/123456";
const COMMENT_URL = `${PULL_URL}#issuecomment-123456789012`;

/** A run over `files` files, each tried `attempts` times with a diff of `lines` lines: the report grows with all three. */
function bigResult(files: number, attempts: number, lines: number): ResolveResult {
  const sample = sampleResult();
  const template = sample.outcomes[0]!;
  const outcomes = Array.from({ length: files }, (_, f) => {
    const path = `src/module-${f}/file-${f}.ts`;
    const diff = [`--- a/${path}`, `+++ b/${path}`, "@@ -1,1 +1,1 @@", ...Array.from({ length: lines }, (_, i) => `+const v${i} = "ünïcödé 😀 ${i}";`)].join(
      "\n",
    );
    return {
      ...template,
      path,
      developer: { ...template.developer, path },
      attempts: Array.from({ length: attempts }, (_, a) => ({ number: a + 1, diff, review: { approved: a === attempts - 1, comment: `Review ${a + 1}.` } })),
      diff,
    };
  });
  return {
    ...sample,
    outcomes,
    tasks: outcomes.map((o) => ({ path: o.path, description: `Change ${o.path}.` })),
    plan: { steps: outcomes.map((o) => [o.path]), rationale: "One after the other." },
  };
}

describe("capBody", () => {
  it("keeps a body that fits, and cuts one that does not between blocks, fences closed, with the note last", () => {
    expect(capBody("short")).toBe("short");
    const text = `Status\n\n\`\`\`\n${"log line\n".repeat(10_000)}\`\`\`\n\nNext step.`;
    const capped = capBody(text);
    expect(capped.length).toBeLessThanOrEqual(GITHUB_BODY_LIMIT);
    expect(capped.startsWith("Status\n\n```\nlog line\n")).toBe(true);
    expect(capped.endsWith(`log line\n\`\`\`\n\n${CUT_NOTE}`)).toBe(true);
    expect(capBody("x".repeat(5_000), "(cut)", 2_048)).toMatch(/^x+\n\n\(cut\)$/);
  });
});

describe("splitReport", () => {
  it("leaves a report that fits the description whole", () => {
    const report = renderReport(sampleResult(), { title: "sum", issueNumber: 7 });
    expect(splitReport(report)).toEqual({ head: report, parts: [] });
    expect(renderDescription(report, 0)).toBe(report);
  });

  it("keeps the summary, plan and task table with the QA verdicts in the description; the rest follows in parts within GitHub's limit", () => {
    const report = renderReport(bigResult(6, 3, 400), { title: "Rename everything", issueNumber: 7 });
    expect(report.length).toBeGreaterThan(200_000);
    const { head, parts } = splitReport(report);
    expect(head.length).toBeLessThanOrEqual(REPORT_LAYOUT.head);
    expect(head).toMatch(/^## MAGIS: Rename everything\n\nFixes #7\n/);
    expect(head).toContain("### Plan\n\n1. `src/module-0/file-0.ts`");
    expect(head).toContain("| File | Task | Developer role | Attempts | QA verdict | Kept |");
    expect(head).toContain("| `src/module-5/file-5.ts` | Change src/module-5/file-5.ts. | **Ada**: You own sum. | 3 | approved | yes |");
    expect(parts.length).toBeGreaterThan(2);
    // Whole sections stay in the description; the first that does not fit opens the first comment.
    expect(head).not.toContain("(continued)");
    expect(parts[0]).toMatch(/^<details>\n<summary>(Kick-off meeting transcript|QA reviews, attempt by attempt)<\/summary>\n/);
    const links = parts.map(() => COMMENT_URL);
    const description = renderDescription(head, parts.length, links);
    // What the revision history may still add: GitHub's limit less the description with every link.
    expect(GITHUB_BODY_LIMIT - description.length).toBeGreaterThanOrEqual(6_000);
    expect(description).toContain(`*The rest of this report is in ${parts.length} comments: [part 2](${COMMENT_URL}), [part 3](${COMMENT_URL}),`);
    parts.forEach((part, i) => {
      const comment = renderReportPart(part, i + 2, parts.length + 1, PULL_URL);
      expect(comment.length).toBeLessThanOrEqual(GITHUB_BODY_LIMIT);
      expect(readReportPartMarker(comment)).toBe(i + 2);
      expect(comment).toContain(`**MAGIS report, part ${i + 2} of ${parts.length + 1}** (continued from the [description](${PULL_URL}))`);
      expect((comment.match(/<details/g) ?? []).length).toBe((comment.match(/<\/details>/g) ?? []).length);
    });
    expect(parts.at(-1)).toContain("<summary>Usage</summary>");
  });

  it("posts at most ten parts, the last saying the rest was left out", () => {
    const report = renderReport(bigResult(20, 4, 700), { title: "Huge", issueNumber: 7 });
    const { parts } = splitReport(report);
    expect(parts).toHaveLength(REPORT_LAYOUT.maxParts);
    expect(parts.at(-1)).toMatch(/\n\n\*The report goes on for \d+ more parts, left out: the bot posts at most 10 comments for one report\.\*$/);
    for (const [i, part] of parts.entries()) expect(renderReportPart(part, i + 2, 11, PULL_URL).length).toBeLessThanOrEqual(GITHUB_BODY_LIMIT);
  });

  it("says how many parts follow until they are posted, and links the first alone when the links do not fit", () => {
    expect(renderDescription("Head\n", 2)).toBe("Head\n\n---\n\n*The rest of this report is in 2 comments below.*\n");
    const long = `${PULL_URL}#${"x".repeat(400)}`;
    const described = renderDescription("Head", 10, Array(10).fill(long));
    expect(described).toBe(`Head\n\n---\n\n*The rest of this report is in 10 comments below, from [part 2](${long}) on.*\n`);
  });
});
