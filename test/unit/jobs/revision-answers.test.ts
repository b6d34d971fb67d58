import { describe, expect, it } from "vitest";
import { appendRevisionHistory, lastRevision, renderHistoryEntry, renderReply } from "../../../src/jobs/kinds/revise/render-answers.js";
import type { RevisionResult } from "../../../src/pipeline/revise/types.js";
import type { TaskOutcome } from "../../../src/pipeline/types.js";

const REPORT = "## MAGIS: Fix the typo\n\nFixes #1\n\n<details>\n<summary>Usage</summary>\n\n| a |\n\n</details>\n";
const DIFF = "--- a/README.md\n+++ b/README.md\n@@ -4 +4 @@\n-old\n+new\n";

function outcome(path: string, changes: Partial<TaskOutcome>): TaskOutcome {
  return {
    path,
    developer: { name: "Dev", path, role: "r" },
    qaRole: "qa",
    approved: true,
    kept: true,
    diff: DIFF,
    before: "old\n",
    after: "new\n",
    encoding: "utf-8",
    attempts: [{ number: 1, diff: DIFF, review: { approved: true, comment: "Does what was asked." } }],
    ...changes,
  };
}

function result(outcomes: TaskOutcome[], declined: RevisionResult["declined"] = []): RevisionResult {
  const byAgent = Object.fromEntries(
    ["custodian", "manager", "developer", "qa"].map((a) => [a, { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, model: "m" }]),
  );
  return {
    patch: Buffer.from(outcomes.map((o) => o.diff).join("")),
    changes: outcomes.filter((o) => o.kept).map((o) => ({ path: o.path, before: o.before, after: o.after, encoding: o.encoding })),
    outcomes,
    tasks: outcomes.map((o) => ({ path: o.path, description: `Task on ${o.path}.` })),
    feedback: [],
    declined,
    developers: [],
    plan: { steps: [], rationale: "" },
    usage: { calls: 0, byAgent: byAgent as RevisionResult["usage"]["byAgent"], wallMs: 0 },
  };
}

describe("the revision history in the pull request description", () => {
  it("is appended after the original report the first time, then grows entry by entry inside its markers", () => {
    const once = appendRevisionHistory(REPORT, "- **Revision 1** (run #3): a");
    expect(once.startsWith(REPORT.trimEnd())).toBe(true);
    expect(lastRevision(REPORT)).toBe(0);
    expect(lastRevision(once)).toBe(1);
    const twice = appendRevisionHistory(`${once}\nA note a maintainer added below.\n`, "- **Revision 2** (run #4): b");
    expect(lastRevision(twice)).toBe(2);
    expect(twice).toContain("- **Revision 1** (run #3): a\n- **Revision 2** (run #4): b\n<!-- /magis:revisions -->");
    expect(twice.endsWith("A note a maintainer added below.\n")).toBe(true);
    expect(twice.match(/### Revision history/g)).toHaveLength(1);
  });

  it("puts the end marker back when someone deleted it", () => {
    const once = appendRevisionHistory(REPORT, "- **Revision 1** (run #3): a").replace("<!-- /magis:revisions -->\n", "");
    const twice = appendRevisionHistory(once, "- **Revision 2** (run #4): b");
    expect(twice.endsWith("- **Revision 2** (run #4): b\n<!-- /magis:revisions -->\n")).toBe(true);
    expect(lastRevision(twice)).toBe(2);
  });

  it("leaves out the oldest entries, still numbering on, rather than pass GitHub's limit", () => {
    let body = `${REPORT}${"x".repeat(1_000)}\n`;
    for (let n = 1; n <= 40; n++) body = appendRevisionHistory(body, `- **Revision ${n}** (run #${n}): ${"a".repeat(40)}`, 2_500);
    expect(body.length).toBeLessThanOrEqual(2_500);
    expect(body.startsWith(`${REPORT}${"x".repeat(1_000)}\n\n<!-- magis:revisions -->\n### Revision history\n\n- *Earlier revisions are left out`)).toBe(true);
    expect(body.match(/- \*Earlier revisions are left out/g)).toHaveLength(1);
    expect(body).toContain("- **Revision 40** (run #40)");
    expect(body).not.toContain("- **Revision 1** ");
    expect(lastRevision(body)).toBe(40);
    expect(() => appendRevisionHistory("y".repeat(2_500), "- **Revision 1** (run #1): a", 2_500)).toThrow(
      "the revision history was not added: the pull request description is 2,500 characters, and GitHub takes at most 2,500; shorten the description by hand",
    );
  });

  it("says what a revision pushed and each task's verdict, or that it changed nothing and why", () => {
    const r = result([outcome("README.md", {}), outcome("src/a.ts", { approved: false, kept: false, diff: "" })]);
    expect(renderHistoryEntry({ number: 2, jobId: 7, askedBy: "@octo", commit: "0123456789abcdef", result: r })).toBe(
      "- **Revision 2** (run #7, asked by @octo): 0123456 changes `README.md` (`README.md` approved, `src/a.ts` not approved).",
    );
    expect(renderHistoryEntry({ number: 3, jobId: 8, askedBy: "@octo", commit: null, result: r, note: "nothing approved" })).toBe(
      "- **Revision 3** (run #8, asked by @octo): no change — nothing approved.",
    );
  });
});

describe("the reply in an inline comment's thread", () => {
  it("names the commit, the task, the QA verdict and shows the file's diff when the file changed", () => {
    const reply = renderReply("README.md", result([outcome("README.md", {})]), "0123456789abcdef");
    expect(reply).toContain("✅ Changed `README.md` in 0123456 (1 attempt, approved by the QA Engineer): Task on README.md.");
    expect(reply).toContain("QA: Does what was asked.");
    expect(reply).toContain("```diff\n--- a/README.md");
  });

  it("says why not: the Manager declined, QA never approved, the edit was refused, or no task concerned the file", () => {
    const r = result(
      [
        outcome("a.ts", {
          approved: false,
          kept: false,
          diff: "",
          attempts: [
            { number: 1, diff: DIFF, review: { approved: false, comment: "Wrong variable." } },
            { number: 2, diff: DIFF, review: { approved: false, comment: "Still wrong." } },
          ],
        }),
        outcome("b.ts", { approved: false, kept: false, diff: "", attempts: [{ number: 1, error: "your edits could not be applied" }] }),
      ],
      [{ path: "c.ts", reason: "Out of scope" }],
    );
    expect(renderReply("a.ts", r, null)).toBe(
      "❌ I did not change `a.ts`: the QA Engineer did not approve it after 2 attempts (last review: Still wrong.). Reply with more precise guidance and comment `/magis revise` to try again.",
    );
    expect(renderReply("b.ts", r, "abc")).toContain("my last attempt was refused: your edits could not be applied");
    expect(renderReply("c.ts", r, "abc")).toBe("ℹ️ I did not change `c.ts`: Out of scope.");
    expect(renderReply("d.ts", r, "abc")).toBe("ℹ️ I did not change `d.ts`: no task of this revision concerned it.");
  });

  it("cuts a diff too long for a comment, fences closed, and says the commit holds it whole", () => {
    const diff = `--- a/big.txt\n+++ b/big.txt\n@@ -1 +1,9000 @@\n${Array.from({ length: 9_000 }, (_, i) => `+line ${i}`).join("\n")}\n`;
    const reply = renderReply("big.txt", result([outcome("big.txt", { diff })]), "0123456789abcdef");
    expect(reply.length).toBeLessThanOrEqual(65_536);
    expect(reply.startsWith("✅ Changed `big.txt` in 0123456")).toBe(true);
    expect(reply).toMatch(/\n```\n\n<\/details>\n\n\*\(The diff is cut here, at GitHub's limit for a comment; 0123456 holds the whole change\.\)\*$/);
  });

  it("shows a reason's <details> tags as text, so a model cannot break the reply's layout", () => {
    expect(renderReply("c.ts", result([], [{ path: "c.ts", reason: "</details> no" }]), null)).toContain("&lt;/details> no.");
  });
});
