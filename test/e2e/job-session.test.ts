import { describe, expect, it } from "vitest";
import { storedEntry } from "../../src/session/stored-entry.js";
import type { StoredSessionEntry } from "../../src/session/types.js";
import { FULL, INSTALLATION, SECRET, TOKEN, useRig } from "./e2e-rig.js";
import { labeledPayload, reviewComment, reviewPayload } from "./payloads.js";
import { README_HUNK, REVISE_LINE_4, scriptRevisions, seedBotPullRequest } from "./script-revise.js";

const rig = useRig();
const KEY = "sk-test-key-not-secret-123456";
// The repository's "test", run in bubblewrap: it fails on the default branch and passes with the fix.
const config = "test_command: grep -q 'Please commit your' README.md && echo spelled right || { echo 'README still says committ'; exit 1; }\n";

/** The index of the first entry that `match` holds for, after `from`; -1 if none does. */
function indexOf(entries: StoredSessionEntry[], match: (entry: StoredSessionEntry) => boolean, from = 0): number {
  const found = entries.slice(from).findIndex(match);
  return found === -1 ? -1 : found + from;
}

describe("a job's session in the store", () => {
  it("holds, in order, the job, its stages, model calls, progress, commands, the result and the outcome, and no token", async () => {
    await rig.setUp({
      config,
      env: { PATH: process.env.PATH },
      // A maintainer's hint quoting the installation token: it reaches the prompts, never the session.
      comments: [{ body: `Maybe this helps: the token is ${TOKEN}.`, user: { login: "Codertocat", type: "User" }, association: "OWNER" }],
    });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-session");
    await rig.app.services.settled();
    const [job] = await rig.jobs();
    expect(job).toMatchObject({ status: "succeeded" });
    const rows = await rig.app.services.store.sessions.read(job!.id);
    const entries = rows.map(storedEntry);
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));

    // The job first, the outcome last.
    expect(entries[0]).toMatchObject({
      kind: "job",
      data: { id: job!.id, jobKind: "resolve-issue", repository: FULL, number: 1, title: "Spelling error in the README file" },
    });
    expect(entries[0]!.data).toHaveProperty("url", `https://github.com/${FULL}/issues/1`);
    const outcome = entries.at(-1)!;
    expect(outcome).toMatchObject({ kind: "outcome", data: { status: "succeeded", detail: job!.detail, pullRequest: job!.detail } });

    // Each stage started and ended, in the job's order.
    const stages = entries.flatMap((e) => (e.kind === "stage" ? [`${e.data.name} ${e.data.state}`] : []));
    expect(stages.filter((s) => s.endsWith("started")).map((s) => s.split(" ")[0])).toEqual([
      "setup",
      "clone",
      "locate",
      "plan",
      "kickoff",
      "code",
      "publish",
      "cleanup",
    ]);
    expect(stages.filter((s) => s.endsWith("ended"))).toHaveLength(8);

    // Model calls with their prompts and tokens, inside the stages.
    const calls = entries.filter((e) => e.kind === "model-call");
    expect(calls.length).toBe(rig.model.requests.length);
    for (const call of calls) {
      if (call.kind !== "model-call") continue;
      expect(call.data.messages.length).toBeGreaterThan(0);
      expect(call.data.promptTokens).toBeGreaterThan(0);
      expect(call.data.completionTokens).toBeGreaterThan(0);
      expect(call.data.promptHash).toMatch(/^[0-9a-f]{12}$/);
    }
    // Where commands may run, the Manager defines the first file's task with the way.
    expect(calls.map((c) => c.kind === "model-call" && c.data.prompt)).toContain("manager-define-task-and-way");
    const started = (name: string) => indexOf(entries, (e) => e.kind === "stage" && e.data.name === name && e.data.state === "started");
    const firstCall = (prompt: string) => indexOf(entries, (e) => e.kind === "model-call" && e.data.prompt === prompt);
    expect(firstCall("custodian-judge-relevance")).toBeGreaterThan(started("locate"));
    expect(firstCall("qa-review")).toBeGreaterThan(started("code"));

    // The pipeline's progress, in its order.
    const progress = (stage: string) => indexOf(entries, (e) => e.kind === "progress" && e.data.stage === stage);
    const order = ["located", "tasks", "kickoff", "attempt"].map(progress);
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(entries.some((e) => e.kind === "progress" && (e.data.stage as string) === "done")).toBe(false);

    // The tests, run in bubblewrap before the change and with it.
    const commands = entries.flatMap((e) => (e.kind === "command" ? [e.data] : []));
    expect(commands.length).toBeGreaterThanOrEqual(2);
    expect(commands[0]).toMatchObject({ sandbox: "in bubblewrap", outcome: "failed", exitCode: 1 });
    expect(commands[0]!.command).toContain("grep -q 'Please commit your' README.md");
    expect(commands[0]!.tail).toContain("README still says committ");
    expect(commands.some((c) => c.outcome === "passed" && c.tail.includes("spelled right"))).toBe(true);

    // The result: the patch as text, and the usage; before the outcome.
    const result = indexOf(entries, (e) => e.kind === "result");
    expect(result).toBeGreaterThan(progress("attempt"));
    expect(result).toBeLessThan(entries.length - 1);
    const patch = (entries[result]!.data as { patch: string }).patch;
    expect(patch).toContain("+Please commit your");
    expect(entries[result]!.data).toHaveProperty("usage.calls", calls.length);

    // No token, no key, no webhook secret anywhere in it; the hint's token was redacted, not dropped.
    const text = JSON.stringify(rows);
    for (const secret of [TOKEN, KEY, SECRET]) expect(text).not.toContain(secret);
    expect(rig.model.requests.some((r) => r.messages.some((m) => m.content.includes("Maybe this helps")))).toBe(true);
    expect(text).toContain("the token is [redacted]");
  });

  it("of a revision: its progress, its result and its outcome with the pull request", async () => {
    const seeded = seedBotPullRequest(rig.root);
    await rig.setUp({
      pulls: seeded.pulls,
      reviewComments: [reviewComment({ id: 603, reviewId: 97, path: "README.md", line: 4, body: "Say where to push.", diffHunk: README_HUNK })],
      script: (model) => scriptRevisions(model, REVISE_LINE_4),
    });
    await rig.app.deliver("pull_request_review", reviewPayload({ installationId: INSTALLATION, reviewId: 97, state: "changes_requested" }), "d-rev-session");
    await rig.app.services.settled();
    const [job] = await rig.jobs();
    expect(job).toMatchObject({ kind: "revise-pull-request", status: "succeeded" });
    const entries = (await rig.app.services.store.sessions.read(job!.id)).map(storedEntry);
    expect(entries[0]).toMatchObject({ kind: "job", data: { jobKind: "revise-pull-request", number: 2 } });
    expect(entries.some((e) => e.kind === "progress" && e.data.stage === "tasks")).toBe(true);
    expect(entries.some((e) => e.kind === "model-call")).toBe(true);
    const result = entries.find((e) => e.kind === "result");
    expect((result!.data as { patch: string }).patch).toContain("README.md");
    expect(entries.at(-1)).toMatchObject({ kind: "outcome", data: { status: "succeeded", pullRequest: expect.stringContaining("/pull/2") } });
    expect(JSON.stringify(entries)).not.toContain(TOKEN);
  });
});
