import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pathIn } from "../../../examples/read-request.js";
import { custodianAnswers } from "../../../examples/script-custodian.js";
import { defineTask, staticWay } from "../../../examples/script-way.js";
import { startResolveRig, type ResolveRig } from "./run-resolve.js";
import { editBlockAnswer, editBlockReply } from "../../support/edit-block-answer.js";
import { reply } from "../../support/scripted-model.js";

// Line 7 must add 1; "      n += 0;" also sits on line 5, so an anchor named at line 6 fits both equally well.
const COUNTER = [
  "export function count(items) {",
  "  let n = 0;",
  "  for (const item of items) {",
  "    if (item.skip) {",
  "      n += 0;",
  "    } else {",
  "      n += 0;",
  "    }",
  "  }",
  "  return n;",
  "}",
  "",
].join("\n");

const range = (start: number, end: number, file = "src/counter.js") => ({ path: file, ranges: [{ start, end, why: "the count" }] });

/** Every refusal of issue 4's "Must hold", in the order the scripted Developer makes them, with the feedback it must get. */
const refusals: { locate: unknown; write?: unknown; feedback: string }[] = [
  { locate: range(1, 1, "../outside.js"), feedback: "'../outside.js' points outside the repository; you may only change files inside the repository" },
  {
    locate: range(1, 1, ".github/workflows/ci.yml"),
    feedback: "'.github/workflows/ci.yml' is protected (it matches `.github/**` in protected_paths); it must not be changed",
  },
  { locate: range(1, 1, "src/missing.js"), feedback: "'src/missing.js' does not exist in the repository. Your task is on `src/counter.js`" },
  {
    locate: {
      path: "src/counter.js",
      ranges: [
        { start: 3, end: 5, why: "" },
        { start: 5, end: 7, why: "" },
      ],
    },
    feedback: "ranges 3-5 and 5-7 overlap",
  },
  { locate: range(10, 14), feedback: "range 10-14 is outside the file, which has 11 lines" },
  { locate: range(6, 6), write: editBlockReply("      n += 0;", "      n += 1;"), feedback: "fits 2 places equally well" },
  { locate: range(7, 7), write: editBlockReply("      n += 0;", "      n += (1;"), feedback: "adds syntax errors that `src/counter.js` did not have (line 7" },
  { locate: range(7, 7), write: editBlockReply("      n += 0;", "      n += 0;"), feedback: "leave `src/counter.js` unchanged" },
];

let rig: ResolveRig;
beforeEach(async () => {
  rig = await startResolveRig({
    issue: "count() counts nothing\n\n`count([{}, {}])` returns 0; items that are not skipped must count 1 each.\n",
    files: {
      "src/counter.js": COUNTER,
      "src/other.js": "export const other = 1;\n",
      "README.md": "# counter\n\nCounts items.\n",
      ".github/workflows/ci.yml": "on: push\njobs: {}\n",
      ".github/magis.yml": "qa_iterations: 10\n",
    },
  });
  for (const [prompt, answer] of Object.entries({
    ...custodianAnswers((file) => file === "src/counter.js"),
    ...staticWay,
    ...defineTask(() => ({ needs_change: true, description: "Make the else branch of count() add 1." })),
  }))
    rig.model.script(prompt, answer);
  rig.model
    .script("manager-design-developer", () => ({ name: "Counter Keeper", role: "You own count()." }))
    .script("manager-open-meeting", () => ({ speech: "One task: fix count()." }))
    .script("developer-speak", () => ({ speech: "I will fix the else branch." }))
    .script("manager-close-meeting", () => ({ speech: "Counter Keeper fixes count()." }))
    .script("developer-refine-role", () => ({ role: "You own count() and nothing else." }))
    .script("developer-design-qa", () => ({ role: "You check that non-skipped items count 1." }));
});
afterEach(() => rig.close());

describe("magis resolve refuses bad edits with precise feedback, over HTTP", () => {
  it("feeds each refusal back to the Developer, reports it, and writes nothing outside the output folder", async () => {
    rig.model
      .script("developer-locate-lines", ...refusals.map((r) => r.locate), range(7, 7))
      .script("developer-write-code", ...refusals.flatMap((r) => (r.write ? [r.write] : [])), editBlockReply("      n += 0;", "      n += 1;"))
      .script("qa-review", { approved: true, comment: "Counts now." });
    const before = rig.snapshot();
    const run = await rig.resolve();
    expect(rig.model.problems).toEqual([]);
    expect(run.code, run.stderr).toBe(0);

    // Attempt k+1 of the Developer was told exactly why attempt k was refused.
    const asked = rig.model.requests.filter((r) => r.prompt === "developer-locate-lines").map((r) => r.messages.at(-1)!.content);
    expect(asked).toHaveLength(refusals.length + 1);
    refusals.forEach((refusal, k) => {
      expect(asked[k + 1]).toContain(`Your attempt ${k + 1} was refused`);
      expect(asked[k + 1]).toContain(refusal.feedback);
    });
    const report = fs.readFileSync(path.join(rig.out, "report.md"), "utf8");
    refusals.forEach((_refusal, k) => expect(report).toContain(`- **Attempt ${k + 1}** — refused before review: `));
    for (const refusal of refusals) expect(report).toContain(refusal.feedback);
    expect(report).toContain(`- **Attempt ${refusals.length + 1}** — approved: Counts now.`);

    const after = rig.snapshot();
    for (const [file, text] of before) expect(after.get(file), file).toBe(text);
    expect([...after.keys()].filter((file) => !before.has(file)).every((file) => file.startsWith(`out${path.sep}`))).toBe(true);
    expect(fs.existsSync(path.join(rig.work, "outside.js"))).toBe(false);
    expect(fs.readFileSync(path.join(rig.out, "patch.diff"), "utf8")).toContain("-      n += 0;\n+      n += 1;\n     }");
  });

  it("sends an answer that is not one SEARCH/REPLACE block back once, saying what was wrong, then applies the corrected one", async () => {
    rig.model
      .script("developer-locate-lines", range(7, 7))
      .script("developer-write-code", reply.text(editBlockAnswer("", "      n += 1;")), editBlockReply("      n += 0;", "      n += 1;"))
      .script("qa-review", { approved: true, comment: "Counts now." });
    const run = await rig.resolve();
    expect(rig.model.problems).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    const writes = rig.model.requests.filter((r) => r.prompt === "developer-write-code");
    expect(writes).toHaveLength(2);
    expect(writes.map((r) => r.hasResponseFormat)).toEqual([false, false]);
    const correction = writes[1]!.messages.at(-1)!.content;
    expect(correction).toContain("Your previous answer could not be used: the SEARCH part is empty, so nothing says which lines change");
    expect(correction).toContain("Answer again in the format asked: your reasoning as prose if you like, then exactly one block: a line `<<<<<<< SEARCH`");
    expect(fs.readFileSync(path.join(rig.out, "patch.diff"), "utf8")).toContain("-      n += 0;\n+      n += 1;\n     }");
  });

  it("exits non-zero with the reason when the only task never gets past a refusal", async () => {
    rig.model.script("developer-locate-lines", (r) => range(1, 1, pathIn(r) === "src/counter.js" ? ".github/workflows/ci.yml" : "x"));
    fs.writeFileSync(path.join(rig.checkout, ".github/magis.yml"), "qa_iterations: 2\n");
    const run = await rig.resolve();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("magis resolve: no patch. The code stage failed: Every coding task failed");
    expect(run.stderr).toContain("src/counter.js: 2 attempts, the last refused: '.github/workflows/ci.yml' is protected");
    expect(run.stderr.trim().split("\n").at(-1)).toMatch(/^magis resolve: no patch\..* Next: /);
    expect(rig.model.requests.some((r) => r.prompt === "qa-review")).toBe(false);
  });
});
