import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { custodianAnswers } from "../../../examples/script-custodian.js";
import { defineTask, staticWay } from "../../../examples/script-way.js";
import { startResolveRig, type ResolveRig } from "./run-resolve.js";
import { editBlockReply } from "../../support/edit-block-answer.js";

const COUNTER = "export function count(items) {\n  let n = 0;\n  for (const item of items) {\n    if (item.skip) continue;\n    n += 0;\n  }\n  return n;\n}\n";
const HEAD = "`count([{}, {}])` returns 0; items that are not skipped must count 1 each.";
const TAIL = "TypeError: count() returned 0 for 2 items";

// An issue with a pasted log of 0.92 MB, as in the report: the whole body went into every later prompt.
function largeIssue(): string {
  const log = Array.from({ length: 20_000 }, (_, i) => `2024-05-01T10:00:${String(i % 60).padStart(2, "0")} INFO worker ${i} heartbeat ok`).join("\n");
  return `count() counts nothing\n\n${HEAD}\n\n\`\`\`\n${log}\n${TAIL}\n\`\`\`\n`;
}

let rig: ResolveRig;
beforeEach(async () => {
  rig = await startResolveRig({ issue: largeIssue(), files: { "src/counter.js": COUNTER, "README.md": "# counter\n\nCounts items.\n" } });
  for (const [prompt, answer] of Object.entries({
    ...custodianAnswers((file) => file === "src/counter.js"),
    ...staticWay,
    ...defineTask(() => ({ needs_change: true, description: "Make count() add 1 per item." })),
  }))
    rig.model.script(prompt, answer);
  rig.model
    .script("manager-design-developer", () => ({ name: "Counter Keeper", role: "You own count()." }))
    .script("manager-open-meeting", () => ({ speech: "One task: fix count()." }))
    .script("developer-speak", () => ({ speech: "I will add 1 per item." }))
    .script("manager-close-meeting", () => ({ speech: "Counter Keeper fixes count()." }))
    .script("developer-refine-role", () => ({ role: "You own count()." }))
    .script("developer-design-qa", () => ({ role: "You check the count." }))
    .script("developer-locate-lines", { path: "src/counter.js", ranges: [{ start: 5, end: 5, why: "adds 0" }] })
    .script("developer-write-code", editBlockReply("    n += 0;", "    n += 1;"))
    .script("qa-review", { approved: true, comment: "Counts now." });
});
afterEach(() => rig.close());

describe("magis resolve on an issue with a 0.92 MB body", () => {
  it("shows every agent the same bounded issue: its head, its tail and a note of the cut", async () => {
    expect(largeIssue().length).toBeGreaterThan(900_000);
    const run = await rig.resolve();
    expect(rig.model.problems).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    const issuePrompts = rig.model.requests.filter((r) => r.prompt !== "custodian-summarize-file");
    expect(new Set(issuePrompts.map((r) => r.prompt))).toEqual(
      new Set([
        "custodian-judge-relevance",
        "manager-define-task-and-way",
        "manager-design-developer",
        "manager-open-meeting",
        "developer-speak",
        "manager-close-meeting",
        "developer-refine-role",
        "developer-design-qa",
        "developer-locate-lines",
        "developer-write-code",
        "qa-review",
      ]),
    );
    for (const request of issuePrompts) {
      const text = request.messages.map((m) => m.content).join("\n");
      const prompt = request.prompt ?? "(no prompt header)";
      expect(text.length, prompt).toBeLessThan(20_000);
      expect(text, prompt).toContain(HEAD);
      expect(text, prompt).toContain(TAIL);
      expect(text, prompt).toMatch(/\[… [\d,]+ characters of the issue's description not shown …\]/);
    }
  });
});
