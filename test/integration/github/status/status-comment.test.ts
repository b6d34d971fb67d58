import nock from "nock";
import { ProbotOctokit } from "probot";
import { afterEach, describe, expect, it } from "vitest";
import { CUT_NOTE } from "../../../../src/github/publish/fit-body.js";
import { findStatusComment, statusMarker, StatusComment } from "../../../../src/github/status/status-comment.js";
import type { Octokit } from "../../../../src/github/types.js";
import { fakeGitHub } from "../../../support/github-api.js";

const TOKEN = "ghs_statusTestToken0123456789abcdefghij";

afterEach(() => void nock.cleanAll());

describe("the status comment", () => {
  it("stays within GitHub's limit when its text grows past it, marker first and fences closed, and is found again", async () => {
    // No git behind it: the comment routes never reach the repository.
    const github = fakeGitHub({
      owner: "octo",
      repo: "demo",
      installationId: 1,
      token: TOKEN,
      gitRoot: "/nonexistent",
      cloneUrl: "",
      issue: { number: 5, title: "t", body: "" },
    });
    const octokit = new ProbotOctokit({ auth: { token: TOKEN }, retry: { enabled: false }, throttle: { enabled: false } }) as Octokit;
    const errors: unknown[] = [];
    const render = (lines: number) => `${statusMarker(7)}\n### 😕 MAGIS failed\n\n\`\`\`\n${"a test failed\n".repeat(lines)}\`\`\`\n\nRun again.`;
    const status = await StatusComment.post(
      octokit,
      { owner: "octo", repo: "demo", number: 5 },
      { state: 1, render: (state) => render(state === 1 ? 10 : 10_000), onError: (e) => errors.push(e) },
    );
    status.update(() => 2);
    await status.flush();
    expect(errors).toEqual([]);
    const [comment] = github.comments;
    expect(comment!.history).toHaveLength(2);
    expect(comment!.body.length).toBeLessThanOrEqual(65_536);
    expect(comment!.body.startsWith(`${statusMarker(7)}\n### 😕 MAGIS failed\n\n\`\`\`\na test failed\n`)).toBe(true);
    expect(comment!.body.endsWith(`a test failed\n\`\`\`\n\n${CUT_NOTE}`)).toBe(true);
    expect(await findStatusComment(octokit, { owner: "octo", repo: "demo", number: 5 }, 7)).toMatchObject({ id: comment!.id });
  });

  it("holds its edits while publishing and shows every held change in one edit when released", async () => {
    const github = fakeGitHub({
      owner: "octo",
      repo: "demo",
      installationId: 1,
      token: TOKEN,
      gitRoot: "/nonexistent",
      cloneUrl: "",
      issue: { number: 5, title: "t", body: "" },
    });
    const octokit = new ProbotOctokit({ auth: { token: TOKEN }, retry: { enabled: false }, throttle: { enabled: false } }) as Octokit;
    const errors: unknown[] = [];
    const issue = { owner: "octo", repo: "demo", number: 5 };
    const status = await StatusComment.post(octokit, issue, { state: ["posted"], render: (lines) => lines.join("\n"), onError: (e) => errors.push(e) });
    status.hold();
    status.update((lines) => [...lines, "coded"]);
    status.update((lines) => [...lines, "publishing"]);
    // Nothing is sent while held, however long it waits.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(github.find("PATCH", /\/issues\/comments\//)).toEqual([]);
    status.update((lines) => [...lines, "pull request #100"]);
    status.release();
    await status.flush();
    expect(errors).toEqual([]);
    expect(github.comments[0]!.history).toEqual(["posted", "posted\ncoded\npublishing\npull request #100"]);
    // A flush ends a hold too: a failed publish still shows its failure.
    status.hold();
    status.update((lines) => [...lines, "failed"]);
    await status.flush();
    expect(github.comments[0]!.body).toBe("posted\ncoded\npublishing\npull request #100\nfailed");
  });
  it("shows a burst of changes in one edit with the newest text, once the changes stop", async () => {
    const { github, octokit, issue } = fakeIssue();
    const errors: unknown[] = [];
    const status = await StatusComment.post(octokit, issue, { state: "posted", render: (text) => text, onError: (e) => errors.push(e), quietMs: 20 });
    for (const text of ["located", "planned", "coded", "reviewed"]) status.update(() => text);
    await until(() => github.comments[0]!.history.length > 1);
    // A change while that edit is under way is shown after it, never before it.
    status.update(() => "tested");
    await status.flush();
    expect(errors).toEqual([]);
    expect(github.comments[0]!.history).toEqual(["posted", "reviewed", "tested"]);
  });

  it("holds an edit still waiting for its quiet moment, so it never goes out ahead of what holds it", async () => {
    const { github, octokit, issue } = fakeIssue();
    const status = await StatusComment.post(octokit, issue, { state: "posted", render: (text) => text, onError: () => undefined, quietMs: 10 });
    status.update(() => "coded");
    status.hold();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(github.find("PATCH", /\/issues\/comments\//)).toEqual([]);
    status.update(() => "pull request #100");
    status.release();
    await status.flush();
    expect(github.comments[0]!.history).toEqual(["posted", "pull request #100"]);
  });

  it("does not lose the state of an edit that failed: the next change's edit carries it", async () => {
    const { github, octokit, issue } = fakeIssue([{ method: "PATCH", path: /\/issues\/comments\//, status: 500, times: 1 }]);
    const errors: unknown[] = [];
    const status = await StatusComment.post(octokit, issue, {
      state: ["posted"],
      render: (lines) => lines.join("\n"),
      onError: (e) => errors.push(e),
      quietMs: 10,
    });
    status.update((lines) => [...lines, "coded"]);
    await until(() => errors.length === 1);
    status.update((lines) => [...lines, "tested"]);
    await until(() => github.comments[0]!.history.length > 1);
    await status.flush();
    expect(github.comments[0]!.history).toEqual(["posted", "posted\ncoded\ntested"]);
  });

  it("shows a run's outcome when its last edit failed: the flush tries it once more", async () => {
    const { github, octokit, issue } = fakeIssue([{ method: "PATCH", path: /\/issues\/comments\//, status: 500, times: 1 }]);
    const errors: unknown[] = [];
    const status = await StatusComment.post(octokit, issue, { state: "posted", render: (text) => text, onError: (e) => errors.push(e) });
    status.update(() => "failed");
    await status.flush();
    expect(errors).toHaveLength(1);
    expect(github.comments[0]!.history).toEqual(["posted", "failed"]);
  });

  it("gives up a flush after one more try when GitHub keeps refusing, and reports each failure", async () => {
    const { github, octokit, issue } = fakeIssue([{ method: "PATCH", path: /\/issues\/comments\//, status: 500, times: 10 }]);
    const errors: unknown[] = [];
    const status = await StatusComment.post(octokit, issue, { state: "posted", render: (text) => text, onError: (e) => errors.push(e) });
    status.update(() => "failed");
    await status.flush();
    expect(errors).toHaveLength(2);
    expect(github.find("PATCH", /\/issues\/comments\//)).toHaveLength(2);
    expect(github.comments[0]!.body).toBe("posted");
  });
});

/** A fake GitHub with issue 5 of octo/demo (no git behind it: the comment routes never reach the repository), and a client without retries or pacing. */
function fakeIssue(faults: NonNullable<Parameters<typeof fakeGitHub>[0]["faults"]> = []) {
  const github = fakeGitHub({
    owner: "octo",
    repo: "demo",
    installationId: 1,
    token: TOKEN,
    gitRoot: "/nonexistent",
    cloneUrl: "",
    issue: { number: 5, title: "t", body: "" },
    faults,
  });
  const octokit = new ProbotOctokit({ auth: { token: TOKEN }, retry: { enabled: false }, throttle: { enabled: false } }) as Octokit;
  return { github, octokit, issue: { owner: "octo", repo: "demo", number: 5 } };
}

/** Waits until `condition` holds (what the status does on its own, after its quiet moment); fails after 5 s. */
async function until(condition: () => boolean): Promise<void> {
  for (const start = Date.now(); !condition();) {
    if (Date.now() - start > 5000) throw new Error("the status comment did not get there within 5 s");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
