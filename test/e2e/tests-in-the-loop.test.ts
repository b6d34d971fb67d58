import fs from "node:fs";
import os from "node:os";
import { describe, expect, it } from "vitest";
import { checkoutPrefix } from "../../src/git/checkout-name.js";
import { processesWith } from "../../src/sandbox/escape-probes.js";
import { INSTALLATION, SECRET, TOKEN, useRig } from "./e2e-rig.js";
import { labeledPayload, reviewComment, reviewPayload } from "./payloads.js";
import { README_HUNK, REVISE_LINE_4, scriptRevisions, seedBotPullRequest } from "./script-revise.js";
import { scriptReply } from "../support/script-answer.js";

const rig = useRig();
// The repository's "test": the README spells "commit" right. It fails on the default branch, passes with the fix.
const config = "test_command: grep -q 'Please commit your' README.md && echo spelled right || { echo 'README still says committ'; exit 1; }\n";

/** The body of the pull request the run opened, and the last text of its status comment. */
function published(): { pull: string; status: string } {
  const [pull] = rig.github.pulls;
  const status = rig.github.comments.find((c) => c.body.includes("<!-- magis:status job="))!;
  return { pull: pull!.body, status: status.history.at(-1)! };
}

describe("the repository's tests in an App run", () => {
  it("by default, in bubblewrap: run before the change and with it; the PR and the status comment show both", async () => {
    await rig.setUp({ config, env: { PATH: process.env.PATH } });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-tests-on");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "succeeded" });
    const { pull, status } = published();
    expect(pull).toContain("### Tests");
    expect(pull).toContain("| Before the change | — | — | — | failed (exit 1) |");
    expect(pull).toContain("| With the change | — | — | — | passed (exit 0) |");
    expect(pull).toContain("They ran in a bubblewrap sandbox (no network;");
    expect(rig.app.logs.join("\n")).toContain("repository commands run in a bubblewrap sandbox");
    expect(status).toContain("- [x] Tests (`grep -q 'Please commit your' README.md && echo spelled right ||");
    expect(status).toContain("with the change: passed (exit 0), before it: failed (exit 1)");
    // Each attempt was tested: the first (not approved by the script) already fixed the spelling.
    expect(status).toMatch(/attempt 1 ↩️ revise \(tests: passed \(exit 0\)\), attempt 2 ✅ \(tests: passed \(exit 0\)\)/);
    // Neither the checkout nor the copy the tests ran in is left behind.
    expect(fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(checkoutPrefix()))).toEqual([]);
  });

  it("where no sandbox works: the tests are not run, and the PR says why and what the operator can do", async () => {
    // A PATH without bubblewrap on it, as on a server where it is not installed.
    await rig.setUp({ config, env: { PATH: "/nonexistent" } });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-tests-off");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "succeeded" });
    const { pull, status } = published();
    expect(pull).toContain(
      "was not used: no sandbox works on this machine (bubblewrap is not installed (apt-get install bubblewrap)); its operator can install bubblewrap, or set MAGIS_SANDBOX=none to run them uncontained.",
    );
    expect(status).toContain("not used: no sandbox works on this machine");
    // Nothing can be reproduced where nothing runs: the static way, without asking the Manager.
    expect(status).toContain("- [x] Way: static (the repository's code may not run here (no sandbox works on this machine");
    expect(pull).toContain("The static way: the change was made by reading the code, with no reproduction");
    expect(rig.model.requests.some((r) => r.prompt === "manager-choose-way")).toBe(false);
    expect(
      rig.model.requests
        .find((r) => r.prompt === "qa-review")!
        .messages.map((m) => m.content)
        .join("\n"),
    ).toContain("The repository's tests were not run for this change");
  });
});

describe("the repository's tests in a revision", () => {
  it("with MAGIS_ALLOW_EXEC=1 (MAGIS_SANDBOX=none): the whole head is checked out, each attempt tested, the summary says what the tests say", async () => {
    const seeded = seedBotPullRequest(rig.root);
    // The reviewer's rule as a test: line 4 must say where to push. It fails on the head, passes with the revision.
    const rule = "test_command: grep -q 'push them to GitHub' README.md || { echo 'README does not say where to push'; exit 1; }\n";
    await rig.setUp({
      config: rule,
      env: { PATH: process.env.PATH, MAGIS_ALLOW_EXEC: "1" },
      pulls: seeded.pulls,
      reviewComments: [reviewComment({ id: 601, reviewId: 95, path: "README.md", line: 4, body: "Say where to push.", diffHunk: README_HUNK })],
      script: (model) => scriptRevisions(model, REVISE_LINE_4),
    });
    await rig.app.deliver("pull_request_review", reviewPayload({ installationId: INSTALLATION, reviewId: 95, state: "changes_requested" }), "d-rev-tests");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ kind: "revise-pull-request", status: "succeeded" });
    const status = rig.github.comments.find((c) => c.issue === 2 && c.body.includes("<!-- magis:status job="))!;
    expect(status.body).toContain("Tests (`grep -q 'push them to GitHub' README.md ||");
    expect(status.body).toContain("with the change: passed (exit 0), before it: failed (exit 1).");
    const review = rig.model.requests
      .find((r) => r.prompt === "qa-review")!
      .messages.map((m) => m.content)
      .join("\n");
    expect(review).toContain("- Before the change: failed (exit 1).\n- With the change: passed (exit 0).");
    expect(rig.app.logs.join("\n")).toContain("MAGIS_ALLOW_EXEC=1 is deprecated: it stands for MAGIS_SANDBOX=none");
  });
});

describe("the dynamic way in a revision", () => {
  it("reproduces what the reviewer says still fails on the pull request's head, and the revision makes it pass", async () => {
    const seeded = seedBotPullRequest(rig.root);
    await rig.setUp({
      env: { PATH: process.env.PATH },
      pulls: seeded.pulls,
      reviewComments: [
        reviewComment({
          id: 602,
          reviewId: 96,
          path: "README.md",
          line: 4,
          body: "Still fails: the README does not say where to push.",
          diffHunk: README_HUNK,
        }),
      ],
      script: (model) => {
        // Scripted before the revision's answers, so the Manager's dynamic choice answers first.
        model
          .script("manager-choose-way", () => ({
            way: "dynamic",
            reason: "The reviewer says the README still fails to say where to push; a grep shows it.",
            reproducer: { name: "Rae", role: "You show what a review says is wrong with a short script." },
          }))
          .script("developer-write-reproduction", () =>
            scriptReply({
              path: "reproduce-push.sh",
              command: "sh reproduce-push.sh",
              content: "grep -q 'push them to GitHub' README.md || { echo 'README does not say where to push'; exit 1; }\n",
              expected: "README does not say where to push",
            }),
          )
          .script("developer-check-reproduction", () => ({ reproduced: true, reason: "It prints what the reviewer says is missing." }));
        scriptRevisions(model, REVISE_LINE_4);
      },
    });
    await rig.app.deliver("pull_request_review", reviewPayload({ installationId: INSTALLATION, reviewId: 96, state: "changes_requested" }), "d-rev-repro");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ kind: "revise-pull-request", status: "succeeded" });
    const status = rig.github.comments.find((c) => c.issue === 2 && c.body.includes("<!-- magis:status job="))!;
    expect(status.body).toContain(
      "Way: dynamic: reproduced by `sh reproduce-push.sh`, which failed (exit 1) on the untouched code; with the change it passed (exit 0): the issue is gone.",
    );
    // The Reproducer read the review, and the Developer the reproduction's output on the head.
    expect(rig.model.requests.find((r) => r.prompt === "manager-choose-way")!.messages.at(-1)!.content).toContain(
      "Still fails: the README does not say where to push.",
    );
    expect(rig.model.requests.find((r) => r.prompt === "developer-locate-lines")!.messages.at(-1)!.content).toContain("README does not say where to push");
  });
});

describe("a hostile test_command in a real job", () => {
  it("finds no secret to steal, so none reaches the PR, the comments, the logs or the traces", async () => {
    const key = "sk-test-key-not-secret-123456";
    const hostile = [
      "env",
      'for f in /proc/[0-9]*/environ; do cat "$f"; echo; done',
      "cat /proc/$PPID/environ /proc/1/cmdline",
      // The bot's database and its private key on disk, where a hostile repository could guess them.
      `cat '${os.tmpdir()}'/magis-e2e-*/magis.db '${os.tmpdir()}'/magis-e2e-*/app.private-key.pem`,
      'env | base64; env | rev; echo "$OPENAI_API_KEY" | base64',
      "setsid sleep 3456.789 > /dev/null 2>&1 < /dev/null &",
      "exit 1",
    ].join("\n");
    const canary = "canary-of-the-app-private-key-0123456789";
    fs.writeFileSync(`${rig.root}/app.private-key.pem`, `-----BEGIN RSA PRIVATE KEY-----\n${canary}\n-----END RSA PRIVATE KEY-----\n`);
    await rig.setUp({ config: `test_command: ${JSON.stringify(hostile)}\n`, env: { PATH: process.env.PATH, MAGIS_SANDBOX: process.env.HOSTILE_SANDBOX } });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-hostile");
    await rig.app.services.settled();
    // A clear verdict: the job ends, the tests ran and failed both times, the QA's reading decided.
    expect((await rig.jobs())[0]).toMatchObject({ status: "succeeded" });
    const { pull } = published();
    expect(pull).toContain("| Before the change | — | — | — | failed (exit 1) |");
    const written = await rig.everythingWritten();
    const secrets = [key, SECRET, TOKEN, canary];
    for (const secret of secrets)
      for (const form of [secret, Buffer.from(secret).toString("base64").slice(0, 16), [...secret].reverse().join("")]) expect(written).not.toContain(form);
    // The daemon died with the sandbox.
    await expect.poll(() => processesWith("3456.789"), { timeout: 10_000 }).toEqual([]);
  });
});
