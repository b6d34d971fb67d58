import { describe, expect, it } from "vitest";
import { renderReport } from "../../../src/pipeline/report/render-report.js";
import { sampleResult } from "./sample-result.js";

const meta = { title: "sum is wrong", issueNumber: 7 };

describe("renderReport", () => {
  const report = renderReport(sampleResult(), meta);

  it("shows the usage table's dollars from the price table its options carry, and none without one", () => {
    const priced = renderReport(sampleResult(), { ...meta, prices: new Map([["gpt-4o", { prompt: 1000, completion: 1000 }]]) });
    // The custodian's gpt-4o-mini has no price, and made calls: its cell and the total stay empty.
    expect(priced).toContain("| manager | `gpt-4o` | 5 | 500 | 50 | 550 | $0.55 |");
    expect(priced).toContain("| custodian | `gpt-4o-mini` | 4 | 400 | 40 | 440 |  |");
    expect(report).not.toContain("| Cost |");
  });

  it("opens with the title, Fixes #N and a summary of what changed", () => {
    expect(report.startsWith("## MAGIS: sum is wrong\n\nFixes #7\n")).toBe(true);
    expect(report).toContain("Changes 1 file (`src/a.js`). The QA Engineers approved 1 of 2 tasks.");
  });

  it("keeps closing keywords in quoted text (the issue title, model prose) from closing other issues", () => {
    const sample = sampleResult();
    const quoted = renderReport(
      { ...sample, plan: { ...sample.plan, rationale: "This also fixes #3 and Closes octo/demo#4." } },
      { title: "Crash; fixes #12 too", issueNumber: 7 },
    );
    expect(quoted.startsWith("## MAGIS: Crash; fixes `#12` too\n\nFixes #7\n")).toBe(true);
    expect(quoted).toContain("This also fixes `#3` and Closes `octo/demo#4`.");
    expect(quoted.match(/\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+(?:[\w.-]+\/[\w.-]+)?#\d+/gi)).toEqual(["Fixes #7"]);
  });

  it("pages nobody: mentions in model prose are inert, a scoped path stays as written", () => {
    const sample = sampleResult();
    const outcome = { ...sample.outcomes[0]!, path: "packages/@scope/pkg/index.js" };
    const mentioned = renderReport(
      {
        ...sample,
        transcript: [{ speaker: "Manager", text: "Ping @octocat and @octo-org/maintainers before merging." }],
        outcomes: [outcome, ...sample.outcomes.slice(1)],
      },
      meta,
    );
    expect(mentioned).toContain("Ping @&#8203;octocat and @&#8203;octo-org/maintainers before merging.");
    expect(mentioned).not.toMatch(/(^|[^\w`])@octo/m);
    expect(mentioned).toContain("| `packages/@scope/pkg/index.js` |");
  });

  it("lists the plan steps in order with the rationale", () => {
    expect(report).toContain("### Plan\n\n1. `src/a.js`\n2. `src/b.js`\n\nb uses a.");
  });

  it("has a task row per outcome with role, attempts, verdict and kept", () => {
    expect(report).toContain("| `src/a.js` | Fix sum. | **Ada**: You own sum. | 2 | approved | yes |");
    expect(report).toContain("| `src/b.js` | Use the fixed sum. | **Bob**: You own callers. | 2 | not approved | no |");
  });

  it("shows the transcript in speaking order inside a collapsible section", () => {
    const section = report.slice(report.indexOf("<summary>Kick-off meeting transcript</summary>"));
    const order = ["**Manager**:\n\n> Let us begin.", "**Ada**:", "**Bob**:\n\n> I wait for Ada.\n> Then I update b.", "**Manager**:\n\n> Ada, then Bob."].map(
      (s) => section.indexOf(s),
    );
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it("shows every QA comment and refusal per attempt, with the attempt's diff", () => {
    expect(report).toContain("- **Attempt 1** — changes requested: Handle empty lists.");
    expect(report).toContain("- **Attempt 2** — approved: Looks right.");
    expect(report).toContain("- **Attempt 1** — refused before review: range 9-12 is outside the file, which has 3 lines");
    expect(report).toContain("QA Engineer: You check sums.");
    expect(report).toContain("<summary>Diff of attempt 1</summary>");
  });

  it("keeps model text from closing the collapsible sections", () => {
    expect(report).toContain("Wrong &lt;/details> place.");
    expect(report.match(/<details/g)!.length).toBe(report.match(/<\/details>/g)!.length);
  });

  it("lists located files kept and dropped with reasons, pipes escaped", () => {
    expect(report).toContain("| `src/a.js` | 4.50 | kept | defines sum |");
    expect(report).toContain("| `docs/x.md` | 1.00 | dropped | Custodian: docs \\| unrelated |");
  });

  it("reports usage per agent with models, totals and wall time", () => {
    expect(report).toContain("| manager | `gpt-4o` | 5 | 500 | 50 | 550 |");
    expect(report).toContain("| **total** |  | 14 |  |  | 1012 |");
    expect(report).toContain("Wall time: 12.3 s");
  });

  it("warns about changes kept without QA approval and notes a fallback plan", () => {
    const result = sampleResult();
    result.outcomes[1] = { ...result.outcomes[1]!, kept: true, diff: "x" };
    result.plan.note = "The Manager's plan was invalid twice.";
    const text = renderReport(result, { title: "t", note: "Scripted model" });
    expect(text).toContain("> Scripted model");
    expect(text).toContain("**Warning:** kept without QA approval (keep_unapproved): `src/b.js`");
    expect(text).toContain("| yes, **unapproved** |");
    expect(text).toContain("> **Note:** The Manager's plan was invalid twice.");
    expect(text).not.toContain("Fixes #");
  });

  it("names the past commit like the issue that changed a located file, its keywords and mentions made harmless", () => {
    const sample = sampleResult();
    const pastChange = { oid: "0123456789abcdef0123456789abcdef01234567", subject: "Fixes #3: round | totals, thanks @octocat" };
    const located = [
      { path: "src/money.js", score: 0.4, kept: true, reason: "rounds prices", pastChange },
      { path: "src/tax.js", score: 0.2, kept: false, pastChange },
    ];
    const text = renderReport({ ...sample, located }, meta);
    expect(text).toContain(
      '| `src/money.js` | 0.40 | kept | rounds prices; changed by 0123456 "Fixes `#3`: round \\| totals, thanks @&#8203;octocat", a past commit like this issue |',
    );
    expect(text).toContain('| `src/tax.js` | 0.20 | dropped | changed by 0123456 "Fixes `#3`');
    expect(text).not.toMatch(/Fixes #3/);
  });

  it("says Part of #N, not Fixes, and lists what a human must change in protected files, with the Manager's verdicts", () => {
    const sample = sampleResult();
    const result = {
      ...sample,
      located: [...sample.located, { path: "Makefile", score: 0.5, kept: true, reason: "runs the tests" }],
      setAside: [
        { path: "docs/x.md", kind: "no-change" as const, description: "Only prose." },
        { path: "Makefile", kind: "needs-human" as const, description: "Add `-Werror` to CFLAGS; ping @octocat | review." },
      ],
    };
    const text = renderReport(result, meta);
    expect(text.startsWith("## MAGIS: sum is wrong\n\nPart of #7\n")).toBe(true);
    expect(text).not.toMatch(/\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+#7/i);
    expect(text).toContain("> **Not a complete fix:** the issue also needs changes in 1 protected file (`Makefile`), which the bot never changes.");
    const section = text.slice(text.indexOf("### Needs a human"), text.indexOf("### Plan"));
    expect(section).toContain("match `protected_paths`");
    expect(section).toContain("- `Makefile`: Add `-Werror` to CFLAGS; ping @&#8203;octocat | review.");
    expect(text).toContain(
      "| `Makefile` | 0.50 | needs a human | Manager: protected, a person must change it: Add `-Werror` to CFLAGS; ping @&#8203;octocat \\| review. |",
    );
    expect(text).toContain("| `docs/x.md` | 1.00 | dropped | Manager: no change needed: Only prose. |");
    expect(renderReport(sample, meta)).not.toContain("Needs a human");
  });
});
