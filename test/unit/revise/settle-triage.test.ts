import { describe, expect, it } from "vitest";
import { settleTriage, type CheckPath, type TriageAnswer } from "../../../src/pipeline/revise/settle-triage.js";
import type { ReviewComment } from "../../../src/pipeline/revise/types.js";

const editable: CheckPath = (path) =>
  path.startsWith(".github/") ? { ok: false, error: `'${path}' is protected` } : { ok: true, path: path.replace(/^\.\//, "") };

const comment = (path: string, body: string, line = 3): ReviewComment => ({
  id: line,
  threadId: line,
  path,
  commitId: "6dcb09b5b57875f334f61aebed695e2e4193db5e",
  line,
  body,
  diffHunk: "@@ -1 +1 @@",
});

describe("settleTriage: from the Manager's answer to the revision's tasks", () => {
  it("gives every changed file with inline comments its task, with those comments as its feedback, even if the Manager left it out", () => {
    const answer: TriageAnswer = { tasks: [], declined: [{ path: "src/a.ts", reason: " " }] };
    const triage = settleTriage(answer, { changedFiles: ["src/a.ts"], comments: [comment("src/a.ts", "Rename x to count")], general: [] }, editable);
    expect(triage.tasks).toEqual([{ path: "src/a.ts", description: expect.stringContaining("Do what the reviewer's comments on this file ask") }]);
    expect(triage.feedback).toEqual([{ path: "src/a.ts", comments: [{ line: 3, startLine: undefined, body: "Rename x to count", diffHunk: "@@ -1 +1 @@" }] }]);
    expect(triage.declined).toEqual([]);
  });

  it("leaves out a changed file the Manager declined with a reason: its comments asked for no change, the reason answers them", () => {
    const answer: TriageAnswer = { tasks: [], declined: [{ path: "src/a.ts", reason: "The loop is there because the API pages its results." }] };
    const triage = settleTriage(answer, { changedFiles: ["src/a.ts"], comments: [comment("src/a.ts", "Why a loop here?")], general: [] }, editable);
    expect(triage.tasks).toEqual([]);
    expect(triage.declined).toEqual([{ path: "src/a.ts", reason: "The loop is there because the API pages its results." }]);
  });

  it("adds a task for an untouched file only when the Manager asks, and declines it with the Manager's reason otherwise", () => {
    const comments = [comment("src/a.ts", "Fine"), comment("src/b.ts", "Fix this too"), comment("src/c.ts", "And this")];
    const answer: TriageAnswer = {
      tasks: [
        { path: "src/a.ts", description: "Keep as is but rename.", general_feedback: false },
        { path: "./src/b.ts", description: "Apply the same fix to b.", general_feedback: false },
      ],
      declined: [{ path: "src/c.ts", reason: "Out of scope." }],
    };
    const triage = settleTriage(answer, { changedFiles: ["src/a.ts"], comments, general: [] }, editable);
    expect(triage.tasks.map((t) => t.path)).toEqual(["src/a.ts", "src/b.ts"]);
    expect(triage.tasks[1]!.description).toBe("Apply the same fix to b.");
    expect(triage.declined).toEqual([{ path: "src/c.ts", reason: "Out of scope." }]);
  });

  it("declines a commented untouched file the Manager said nothing about, and any file that cannot be edited", () => {
    const answer: TriageAnswer = { tasks: [{ path: ".github/workflows/ci.yml", description: "Add a step.", general_feedback: true }], declined: [] };
    const triage = settleTriage(answer, { changedFiles: [], comments: [comment("docs/x.md", "Typo here")], general: ["Also add CI."] }, editable);
    expect(triage.tasks).toEqual([]);
    expect(triage.feedback).toEqual([]);
    expect(triage.declined).toEqual([
      { path: ".github/workflows/ci.yml", reason: "it cannot be changed: '.github/workflows/ci.yml' is protected" },
      { path: "docs/x.md", reason: "the Manager did not take this comment up as a task for this revision" },
    ]);
  });

  it("puts the general feedback first on the tasks the Manager applied it to, and on tasks that have no comment of their own", () => {
    const answer: TriageAnswer = {
      tasks: [
        { path: "a.ts", description: "A.", general_feedback: true },
        { path: "b.ts", description: "B.", general_feedback: false },
        { path: "c.ts", description: "C.", general_feedback: false },
      ],
      declined: [],
    };
    const comments = [comment("a.ts", "on a"), comment("b.ts", "on b")];
    const triage = settleTriage(answer, { changedFiles: ["a.ts", "b.ts", "c.ts"], comments, general: ["Use tabs."] }, editable);
    expect(triage.feedback.map((f) => [f.path, f.comments.map((c) => c.body)])).toEqual([
      ["a.ts", ["Use tabs.", "on a"]],
      ["b.ts", ["on b"]],
      ["c.ts", ["Use tabs."]],
    ]);
  });

  it("keeps the first of repeated tasks on one file and fills an empty description", () => {
    const answer: TriageAnswer = {
      tasks: [
        { path: "a.ts", description: " ", general_feedback: true },
        { path: "a.ts", description: "Second.", general_feedback: true },
      ],
      declined: [],
    };
    const triage = settleTriage(answer, { changedFiles: ["a.ts"], comments: [], general: ["Shorter names."] }, editable);
    expect(triage.tasks).toHaveLength(1);
    expect(triage.tasks[0]!.description).toMatch(/^Do what the reviewer's comments/);
  });
});
