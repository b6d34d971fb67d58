import { describe, expect, it } from "vitest";
import { pathIn } from "../../examples/read-request.js";
import { addCommit } from "../support/git-server.js";
import { FULL, INSTALLATION, useRig } from "./e2e-rig.js";
import { labeledPayload } from "./payloads.js";
import { scriptResolve } from "./script-resolve.js";
import { judgeFiles } from "../support/judge-files.js";

const rig = useRig();
const WISH = "Add a step that runs `npm audit` before the tests.";

describe("a change the Manager wants in a protected file, end to end", () => {
  it("fixes the rest, leaves the workflow alone, and says in the PR and the status comment that a human must change it", async () => {
    await rig.setUp({
      script: (model) => {
        // Scripted before the rest, so these answers stand for every file.
        model
          .script("custodian-judge-relevance", (r) =>
            judgeFiles(r, (file) => {
              const relevant = ["README.md", ".github/workflows/ci.yml"].includes(file);
              return { relevant, reason: relevant ? "Named by the issue." : "Unrelated." };
            }),
          )
          .script("manager-define-task", (r) =>
            pathIn(r) === ".github/workflows/ci.yml"
              ? { needs_change: true, description: WISH }
              : { needs_change: true, description: "Line 4 of README.md spells 'commit' as 'committ'. Fix that word only." },
          );
        scriptResolve(model);
      },
    });
    // Words of the issue in the workflow, so that BM25 hands it to the Custodian.
    addCommit(rig.root, FULL, {
      branch: "main",
      files: { ".github/workflows/ci.yml": "# Spelling: check each commit for words spelled wrong\non: push\njobs: {}\n" },
      message: "CI spelling check",
      author: { name: "Test Maintainer", email: "maintainer@example.com" },
    });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "delivery-human");
    await rig.app.services.settled();
    expect(rig.model.problems).toEqual([]);
    expect((await rig.jobs())[0]).toMatchObject({ status: "succeeded" });

    expect(rig.git.git(FULL, "diff", "--name-only", "main", "magis/issue-1")).toBe("README.md");
    const message = rig.git.git(FULL, "log", "-1", "--format=%B", "magis/issue-1");
    const [pull] = rig.github.pulls;
    const body = pull!.body;
    for (const text of [message, body]) {
      expect(text).toContain("Part of #1");
      expect(text).not.toMatch(/\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+#1\b/i);
    }
    expect(body).toContain(`### Needs a human`);
    expect(body).toContain(`- \`.github/workflows/ci.yml\`: ${WISH}`);
    const status = rig.github.comments.find((c) => c.body.includes("<!-- magis:status job="))!;
    expect(status.body).toContain("Pull request opened: #100");
    expect(status.body).toContain("**Not a complete fix:** protected files need a human: `.github/workflows/ci.yml`");
  });
});
