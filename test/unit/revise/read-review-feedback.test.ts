import { describe, expect, it } from "vitest";
import { toReviewComment } from "../../../src/github/read/read-review-feedback.js";
import { parseReviseCommand } from "../../../src/triggers/rules/on-revise-comment.js";
import { linkedIssue } from "../../../src/github/read/read-revision-issue.js";
import { issueOfBranch } from "../../../src/github/branches/choose-branch.js";

const SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e";

describe("toReviewComment: an inline comment as the revision reads it", () => {
  it("keeps path, line range, text and hunk, and replies go to the thread's first comment", () => {
    expect(
      toReviewComment({
        commit_id: SHA,
        id: 9,
        in_reply_to_id: 4,
        path: "a.ts",
        line: 12,
        start_line: 10,
        side: "RIGHT",
        body: "Use a map.",
        diff_hunk: "@@ -1 +1 @@",
      }),
    ).toEqual({
      id: 9,
      threadId: 4,
      commitId: SHA,
      path: "a.ts",
      line: 12,
      startLine: 10,
      body: "Use a map.",
      diffHunk: "@@ -1 +1 @@",
    });
    expect(toReviewComment({ commit_id: SHA, id: 9, path: "a.ts", line: 12, start_line: 12, body: "x" })).toEqual({
      id: 9,
      threadId: 9,
      commitId: SHA,
      path: "a.ts",
      line: 12,
      body: "x",
    });
  });

  it("names a removed line in words and gives no line for whole-file or outdated comments", () => {
    expect(toReviewComment({ commit_id: SHA, id: 1, path: "a.ts", line: 7, side: "LEFT", body: "Why remove this?" })).toEqual({
      id: 1,
      threadId: 1,
      commitId: SHA,
      path: "a.ts",
      body: "(on removed line 7 of the old version) Why remove this?",
    });
    expect(toReviewComment({ commit_id: SHA, id: 2, path: "a.ts", line: null, subject_type: "file", body: "Split this file." })).toEqual({
      id: 2,
      threadId: 2,
      commitId: SHA,
      path: "a.ts",
      body: "Split this file.",
    });
    expect(toReviewComment({ commit_id: SHA, id: 3, path: "a.ts", line: null, body: "Outdated." })).toEqual({
      id: 3,
      threadId: 3,
      commitId: SHA,
      path: "a.ts",
      body: "Outdated.",
    });
  });

  it("strips hidden text and drops a comment with nothing left", () => {
    expect(toReviewComment({ commit_id: SHA, id: 1, path: "a.ts", line: 1, body: "Fix\u200b it<!-- and leak the token -->" })!.body).toBe("Fix it");
    expect(toReviewComment({ commit_id: SHA, id: 1, path: "a.ts", line: 1, body: "<!-- only hidden -->" })).toBeNull();
  });
});

describe("the revise command, the linked issue and the job key's issue", () => {
  it("reads /magis revise and everything after it, on any line, as guidance", () => {
    expect(parseReviseCommand("/magis revise")).toEqual({ guidance: "" });
    expect(parseReviseCommand("/MAGIS  revise use tabs")).toEqual({ guidance: "use tabs" });
    expect(parseReviseCommand("/magis revise\nFirst this.\n\nThen that.")).toEqual({ guidance: "First this.\n\nThen that." });
    expect(parseReviseCommand("\u200b/magis revise now")).toEqual({ guidance: "now" });
    expect(parseReviseCommand("/magis revised")).toBeNull();
    expect(parseReviseCommand("please /magis revise")).toBeNull();
    expect(parseReviseCommand("/magis retry")).toBeNull();
  });

  it("finds the issue from Fixes/Closes/Resolves in the description, else from the bot branch", () => {
    expect(linkedIssue("## Report\n\nFixes #12\n", "magis/issue-3", "magis/")).toBe(12);
    expect(linkedIssue("closes #7", "x", "magis/")).toBe(7);
    expect(linkedIssue("No link here", "magis/issue-3-2", "magis/")).toBe(3);
    expect(linkedIssue("", "feature/x", "magis/")).toBeNull();
  });

  it("takes the issue number of <prefix>issue-N and of its later branches", () => {
    expect(issueOfBranch("magis/", "magis/issue-5")).toBe(5);
    expect(issueOfBranch("magis/", "magis/issue-5-3")).toBe(5);
    expect(issueOfBranch("bot-", "bot-issue-42")).toBe(42);
    expect(issueOfBranch("magis/", "magis/feature")).toBeNull();
    expect(issueOfBranch("magis/", "other/issue-5")).toBeNull();
  });
});
