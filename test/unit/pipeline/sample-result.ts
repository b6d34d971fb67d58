import type { ResolveResult } from "../../../src/pipeline/types.js";

const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** A small but complete ResolveResult: two tasks, one approved on the second attempt, one refused then unapproved. */
export function sampleResult(): ResolveResult {
  const diffA = "--- a/src/a.js\n+++ b/src/a.js\n@@ -1 +1 @@\n-old\n+new\n";
  return {
    patch: Buffer.from(diffA),
    changes: [{ path: "src/a.js", before: "old\n", after: "new\n", encoding: "utf-8" }],
    located: [
      { path: "src/a.js", score: 4.5, kept: true, reason: "defines sum" },
      { path: "src/b.js", score: 2.25, kept: true, reason: "calls sum" },
      { path: "docs/x.md", score: 1, kept: false, reason: "Custodian: docs | unrelated" },
    ],
    setAside: [],
    tasks: [
      { path: "src/a.js", description: "Fix sum." },
      { path: "src/b.js", description: "Use the fixed sum." },
    ],
    developers: [
      { name: "Ada", path: "src/a.js", role: "You own sum." },
      { name: "Bob", path: "src/b.js", role: "You own callers." },
    ],
    transcript: [
      { speaker: "Manager", text: "Let us begin." },
      { speaker: "Ada", text: "I fix sum first." },
      { speaker: "Bob", text: "I wait for Ada.\nThen I update b." },
      { speaker: "Manager", text: "Ada, then Bob." },
    ],
    plan: { steps: [["src/a.js"], ["src/b.js"]], rationale: "b uses a." },
    outcomes: [
      {
        path: "src/a.js",
        developer: { name: "Ada", path: "src/a.js", role: "You own sum." },
        qaRole: "You check sums.",
        attempts: [
          { number: 1, diff: diffA, review: { approved: false, comment: "Handle empty lists." } },
          { number: 2, diff: diffA, review: { approved: true, comment: "Looks right." } },
        ],
        approved: true,
        kept: true,
        diff: diffA,
        before: "old\n",
        after: "new\n",
        encoding: "utf-8",
      },
      {
        path: "src/b.js",
        developer: { name: "Bob", path: "src/b.js", role: "You own callers." },
        qaRole: "You check callers.",
        attempts: [
          { number: 1, error: "range 9-12 is outside the file, which has 3 lines" },
          { number: 2, diff: "--- a/src/b.js\n+++ b/src/b.js\n", review: { approved: false, comment: "Wrong </details> place." } },
        ],
        approved: false,
        kept: false,
        diff: "",
        before: "b\n",
        after: "b\n",
        encoding: "utf-8",
      },
    ],
    usage: {
      calls: 14,
      wallMs: 12_345,
      byAgent: {
        custodian: { ...usage, calls: 4, promptTokens: 400, completionTokens: 40, totalTokens: 440, model: "gpt-4o-mini" },
        manager: { ...usage, calls: 5, promptTokens: 500, completionTokens: 50, totalTokens: 550, model: "gpt-4o" },
        developer: { ...usage, calls: 3, model: "gpt-4o" },
        qa: { ...usage, calls: 2, promptTokens: 20, completionTokens: 2, totalTokens: 22, model: "gpt-4o" },
      },
    },
  };
}
