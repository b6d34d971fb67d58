import { describe, expect, it } from "vitest";
import { renderRevisionStatus, startRevisionStatus, type RevisionStatus } from "../../../src/jobs/kinds/revise/render-status.js";
import { trackProgress } from "../../../src/jobs/track-status.js";
import type { RevisionResult } from "../../../src/pipeline/revise/types.js";

const byAgent = (calls: Record<string, number>) =>
  Object.fromEntries(
    ["custodian", "manager", "developer", "qa"].map((a) => [
      a,
      { calls: calls[a] ?? 0, promptTokens: 0, completionTokens: 0, totalTokens: (calls[a] ?? 0) * 100, model: `m-${a}` },
    ]),
  ) as RevisionResult["usage"]["byAgent"];

const developer = { name: "Ada", path: "a.ts", role: "r" };
const result: RevisionResult = {
  patch: Buffer.from("d"),
  changes: [{ path: "a.ts", before: "1", after: "2", encoding: "utf-8" }],
  outcomes: [
    {
      path: "a.ts",
      developer,
      qaRole: "q",
      attempts: [
        { number: 1, diff: "d", review: { approved: false, comment: "no" } },
        { number: 2, diff: "d", review: { approved: true, comment: "yes" } },
      ],
      approved: true,
      kept: true,
      diff: "d",
      before: "1",
      after: "2",
      encoding: "utf-8",
    },
  ],
  tasks: [{ path: "a.ts", description: "Rename | the thing" }],
  feedback: [],
  declined: [{ path: "b.ts", reason: "Not\nasked" }],
  developers: [developer],
  plan: { steps: [["a.ts"]], rationale: "" },
  usage: { calls: 5, byAgent: byAgent({ manager: 2, developer: 2, qa: 1 }), wallMs: 2500 },
};

describe("the status comment of a revision", () => {
  it("is a checklist while the revision runs, with each task's attempts", () => {
    let state: RevisionStatus = {
      ...startRevisionStatus(4, "@octo requested changes in a review"),
      feedback: { comments: 2, files: 1, general: 1 },
      tasks: result.tasks,
    };
    state = trackProgress(state, { stage: "team", developers: [developer] });
    state = trackProgress(state, { stage: "attempt", path: "a.ts", attempt: result.outcomes[0]!.attempts[0]! });
    const body = renderRevisionStatus(state);
    expect(body).toContain("<!-- magis:status job=4 -->\n### 👀 MAGIS is revising this pull request");
    expect(body).toContain("- [x] Feedback read: 2 inline comments on 1 file and general feedback");
    expect(body).toContain("- [x] 1 task: `a.ts`");
    expect(body).toContain("  - `a.ts` (Ada): attempt 1 ↩️ revise");
    expect(body).toContain("- [ ] Push one commit and answer the comments");
    expect(body).toContain("<sub>Run #4 · @octo requested changes in a review</sub>");
  });

  it("becomes the summary: the commit, the tasks with attempts and verdicts, the files left alone, and usage", () => {
    const body = renderRevisionStatus({
      ...startRevisionStatus(4, "t"),
      done: { commit: "abcdef0123", parent: "99999990000", branch: "magis/issue-1", result },
    });
    expect(body).toContain("### 🚀 MAGIS revised this pull request\n\nPushed abcdef0 on `magis/issue-1` (on top of 9999999); it changes `a.ts`.");
    expect(body).toContain("| `a.ts` | Rename \\| the thing | Ada | 2 | approved | yes |");
    expect(body).toContain("- `b.ts`: Not asked");
    expect(body).toContain(
      "<summary>QA reviews, attempt by attempt</summary>\n\n**`a.ts`** (Ada)\n\n- Attempt 1: changes requested: no\n- Attempt 2: approved: yes\n\n</details>",
    );
    expect(body).toContain("**Usage:** 5 model calls, 500 tokens, 2.5 s — manager 2 on `m-manager`, developer 2 on `m-developer`, qa 1 on `m-qa`.");
  });

  it("says why nothing was pushed, and shows a failure with its stage, reason and next step", () => {
    const none = renderRevisionStatus({
      ...startRevisionStatus(4, "t"),
      done: { commit: null, parent: "p", branch: "b", result: null, note: "the review has no text" },
    });
    expect(none).toContain("### MAGIS made no change in this revision\n\nNothing was pushed: the review has no text.");
    const failed = renderRevisionStatus({
      ...startRevisionStatus(4, "t"),
      failure: { stage: "publish", reason: "The branch moved.", nextStep: "Comment `/magis revise`." },
    });
    expect(failed).toContain("### 😕 MAGIS could not revise this pull request");
    expect(failed).toContain("**Failed at:** publish\n**Why:** The branch moved.\n**Next step:** Comment `/magis revise`.");
  });
});
