import { describe, expect, it } from "vitest";
import { pathIn } from "../../examples/read-request.js";
import { INSTALLATION, useRig } from "./e2e-rig.js";
import { commentPayload, labeledPayload } from "./payloads.js";
import { scriptResolve } from "./script-resolve.js";

const rig = useRig();
const QUESTION = "Should the README say 'commit' or 'submit' here?";
const ANSWER = "It should say commit, spelled with one t.";

describe("a clarifying question, end to end", () => {
  it("asks the issue's author instead of guessing, pushes nothing, and a /magis retry after the answer resolves with it", async () => {
    await rig.setUp({
      script: (model) => {
        // The Manager asks until the author's answer is among the hints; then it acts. Scripted first, so it stands for every file.
        model.script("manager-define-task", (r) => {
          const answered = r.messages.some((m) => m.content.includes(ANSWER));
          if (!answered) return { needs_change: false, description: "The issue does not say which word is meant.", question: QUESTION };
          return pathIn(r) === "README.md"
            ? { needs_change: true, description: "Line 4 of README.md spells 'commit' as 'committ'. Fix that word only." }
            : { needs_change: false, description: "Unrelated." };
        });
        scriptResolve(model);
      },
    });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "delivery-ask");
    await rig.app.services.settled();
    expect(rig.model.problems).toEqual([]);

    // Asked, not failed: the record keeps the question, nothing was written or pushed, and the run got its 🚀.
    const [asked] = await rig.jobs();
    expect(asked).toMatchObject({ status: "succeeded" });
    expect(asked!.detail).toBe(`Asked @Codertocat: ${QUESTION}`);
    expect(rig.model.requests.some((r) => r.agent === "developer")).toBe(false);
    expect(rig.botBranches()).toBe("");
    expect(rig.github.find("POST", /\/pulls$/)).toEqual([]);
    const question = rig.github.comments.find((c) => c.body.startsWith("@Codertocat, before MAGIS works on this issue"));
    expect(question?.body).toContain(`> ${QUESTION}`);
    const status = rig.github.comments.find((c) => c.body.includes("<!-- magis:status job="))!;
    expect(status.body).toContain("MAGIS asked a question before working on this");
    expect(rig.github.reactions).toContainEqual({ target: expect.stringMatching(/issues\/1$/), content: "rocket" });
    const entries = await rig.app.services.store.sessions.read(asked!.id);
    expect(entries.find((e) => e.kind === "question")?.data).toBe(JSON.stringify({ question: QUESTION, author: "Codertocat" }));
    expect(JSON.parse(entries.find((e) => e.kind === "outcome")!.data)).toMatchObject({ status: "asked" });

    // The author answers in a comment; a maintainer's /magis retry runs again with the answer as a hint.
    const now = new Date().toISOString();
    rig.github.comments.push({
      id: 9001,
      issue: 1,
      body: ANSWER,
      user: { login: "Codertocat", type: "User" },
      history: [ANSWER],
      created_at: now,
      updated_at: now,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await rig.app.deliver("issue_comment", commentPayload({ body: "/magis retry", installationId: INSTALLATION }), "delivery-retry");
    await rig.app.services.settled();
    expect(rig.model.problems).toEqual([]);
    const retried = (await rig.jobs()).find((j) => j.id !== asked!.id);
    expect(retried).toMatchObject({ status: "succeeded" });
    expect(retried!.detail).toMatch(/\/pull\/\d+$/);
    const define = rig.model.requests.filter((r) => r.prompt === "manager-define-task").at(-1)!;
    expect(define.messages.some((m) => m.content.includes(ANSWER))).toBe(true);
    expect(rig.git.git("Codertocat/Hello-World", "show", "magis/issue-1:README.md")).toContain("Please commit your changes");
  });
});
