import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { revisePullRequest } from "../../../src/pipeline/revise/revise-pull-request.js";
import type { RevisionInput } from "../../../src/pipeline/revise/types.js";
import { testContext } from "../pipeline/context.js";
import { fakeLlm } from "../pipeline/fake-llm.js";
import { editBlockAnswer } from "../../support/edit-block-answer.js";

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-revise-"));
  fs.writeFileSync(path.join(root, "a.js"), "export const a = 1;\nexport const b = 2;\n");
  fs.writeFileSync(path.join(root, "b.js"), "export const c = 3;\n");
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const input: RevisionInput = {
  issue: { title: "Constants are wrong", body: "a should be 10", hints: ["Pull request #2 is being revised."] },
  changedFiles: [{ path: "a.js", patch: "@@ -1 +1 @@\n-export const a = 0;\n+export const a = 1;" }],
  comments: [
    { id: 5, threadId: 5, path: "a.js", commitId: "6dcb09b5b57875f334f61aebed695e2e4193db5e", line: 1, body: "a must be 10, not 1.", diffHunk: "@@ -1 +1 @@" },
  ],
  general: ["Keep the constants in one style."],
};

/** A model that follows the script: a.js gets the reviewer's fix, b.js a task from the general feedback. */
function scripted(tasks: { path: string; description: string; general_feedback: boolean }[]) {
  return fakeLlm({
    "manager-triage-feedback": () => ({ tasks, declined: [] }),
    "manager-design-developer": (vars) => ({ name: `Dev of ${vars.path}`, role: "careful" }),
    "developer-design-qa": () => ({ role: "strict" }),
    "developer-locate-lines": (vars) => ({ path: vars.path, ranges: [{ start: 1, end: 1, why: "the comment" }] }),
    "developer-write-code": (vars) =>
      vars.path === "a.js" ? editBlockAnswer("export const a = 1;", "export const a = 10;") : editBlockAnswer("export const c = 3;", "export const c = 30;"),
    "qa-review": () => ({ approved: true, comment: "ok" }),
  });
}

describe("revisePullRequest", () => {
  it("runs the Manager's tasks one after another with the reviewer's words as each file's first QA comment", async () => {
    const llm = scripted([
      { path: "a.js", description: "Set a to 10.", general_feedback: false },
      { path: "b.js", description: "Same style for c.", general_feedback: true },
    ]);
    const ctx = testContext(llm, root);
    const result = await revisePullRequest(ctx, input);

    expect(result.plan.steps).toEqual([["a.js"], ["b.js"]]);
    expect(result.changes.map((c) => [c.path, c.after])).toEqual([
      ["a.js", "export const a = 10;\nexport const b = 2;\n"],
      ["b.js", "export const c = 30;\n"],
    ]);
    const locate = llm.calls.filter((c) => c.prompt === "developer-locate-lines");
    expect(String(locate[0]!.vars.feedback)).toMatch(/^A human reviewer commented on this file:\n- On line 1: a must be 10, not 1\./);
    expect(String(locate[0]!.vars.feedback)).not.toContain("Keep the constants in one style.");
    expect(String(locate[1]!.vars.feedback)).toContain("- On the file: Keep the constants in one style.");
    // The second task saw the first one's change.
    expect(String(locate[1]!.vars.earlier_changes)).toContain("+export const a = 10;");
    expect(String(llm.calls[0]!.vars.comments)).toContain("### `a.js` (changed by the pull request)\n- On line 1: a must be 10, not 1.");
    // Every coding prompt, QA's included, carries the whole review as a hint; the Manager's triage shows it in its own sections.
    const review = "- The human review this revision answers:\n  - Keep the constants in one style.\n  - On `a.js`, line 1: a must be 10, not 1.";
    for (const call of llm.calls.filter((c) => c.prompt.startsWith("developer-") || c.prompt === "qa-review"))
      expect(String(call.vars.issue), call.prompt).toContain(review);
    expect(String(llm.calls[0]!.vars.issue)).not.toContain("The human review");
    expect(result.usage.calls).toBe(llm.calls.length);
    expect(result.usage.byAgent.manager.calls).toBe(3);
    expect(ctx.events.map((e) => e.stage)).toEqual(["tasks", "team", "reproduction", "attempt", "task-done", "attempt", "task-done"]);
  });

  it("returns no change, and asks no Developer, when the Manager finds nothing to do", async () => {
    const llm = scripted([]);
    const result = await revisePullRequest(testContext(llm, root), { ...input, comments: [] });
    expect(result.changes).toEqual([]);
    expect(result.outcomes).toEqual([]);
    expect(llm.calls.map((c) => c.prompt)).toEqual(["manager-triage-feedback"]);
  });

  it("declines a task whose path the Manager wrote as a folder (`a.js/`) with the reason, instead of failing the run", async () => {
    const llm = scripted([
      { path: "a.js/", description: "Set a to 10.", general_feedback: false },
      { path: "b.js", description: "Same style for c.", general_feedback: true },
    ]);
    const result = await revisePullRequest(testContext(llm, root), { ...input, comments: [] });
    expect(result.changes.map((c) => c.path)).toEqual(["b.js"]);
    expect(JSON.stringify(result.declined)).toContain("ends with '/', which names a folder");
    expect(JSON.stringify(result)).not.toContain(root);
  });

  it("names the stage when the Manager's call fails", async () => {
    const llm = fakeLlm({});
    await expect(revisePullRequest(testContext(llm, root), input)).rejects.toMatchObject({ name: "StageError", stage: "plan" });
  });
});

describe("what the Manager's triage shows", () => {
  it("each changed file's patch in a fence that survives backticks, and only paths once the diff is too long", async () => {
    const llm = scripted([]);
    const huge = `@@ -1 +1 @@\n${"+x\n".repeat(20_000)}`;
    const changedFiles = [
      { path: "a.js", patch: "@@ -1 +1 @@\n+const s = ```;" },
      ...Array.from({ length: 10 }, (_, i) => ({ path: `big${i}.js`, patch: huge })),
      { path: "d.png" },
    ];
    await revisePullRequest(testContext(llm, root), { ...input, changedFiles });
    const shown = String(llm.calls[0]!.vars.changed_files);
    expect(shown).toContain("### `a.js`\n````diff\n@@ -1 +1 @@\n+const s = ```;\n````");
    expect(shown).toContain("### `big0.js`\n```diff\n@@ -1 +1 @@");
    expect(shown).toContain("… (cut)");
    expect(shown).toContain("### `big9.js`\n(patch not shown: the diff is too long to show every file)");
    expect(shown.length).toBeLessThan(42_000);
    expect(shown).toContain("### `d.png`\n(patch not shown: binary or too large)");
  });
});
