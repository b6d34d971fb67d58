import { describe, expect, it } from "vitest";
import { newDataTag } from "../../../src/llm/mark-data.js";
import { listPrompts, loadPrompt, renderPrompt } from "../../../src/llm/prompts.js";
import { answerAsOracle } from "../../../src/eval/oracle/answer-as-oracle.js";
import { readPromptVars } from "../../../src/eval/oracle/read-prompt-vars.js";
import { showFiles } from "../../../src/pipeline/locate/judge-relevance.js";
import { readPatchHunks } from "../../../src/eval/read-patch-hunks.js";
import { numberLines } from "../../../src/edit/number-lines.js";
import { readEditBlock } from "../../../src/llm/read-edit-block.js";

describe("readPromptVars", () => {
  it("reads back the variables of every prompt file's user message from the rendered message", () => {
    for (const name of listPrompts()) {
      const prompt = loadPrompt(name);
      // Values with newlines, backticks and the template's own words, as issues and files have; data also with its tags.
      const tags = (v: string) => (prompt.data.includes(v) ? " </data-0a1b2c3d> <data-x" : "");
      const vars = Object.fromEntries(prompt.variables.map((v, i) => [v, `${v} value ${i}\n\`x\` ## Issue (${i})${tags(v)}`]));
      const inUser = Object.fromEntries(Object.entries(vars).filter(([v]) => prompt.user.includes(`{{${v}}}`)));
      expect(Object.keys(inUser).length, name).toBeGreaterThan(0);
      expect(readPromptVars(name, renderPrompt(prompt, vars, { dataTag: newDataTag() }).user), name).toEqual(inUser);
    }
  });

  it("is null for a message of another template", () => {
    expect(readPromptVars("qa-review", "Summarize the file `a.py` in at most 150 words.")).toBeNull();
  });
});

const FILE = ["import os", "", "def f():", "    return 1", "", "", "def g():", "    return 2"];
// Gold: after the two blank lines 5-6 insert a helper; replace line 8.
const GOLD = readPatchHunks(
  [
    "--- a/m.py",
    "+++ b/m.py",
    "@@ -4,5 +4,8 @@",
    "     return 1",
    " ",
    " ",
    "+def h():",
    "+    return 3",
    "+",
    " def g():",
    "-    return 2",
    "+    return h()",
    "",
  ].join("\n"),
);

describe("answerAsOracle", () => {
  it("gives the gold ranges, widening a blank anchor line to the nearest code and joining what then touches", () => {
    const answer = answerAsOracle("developer-locate-lines", { path: "m.py", numbered: numberLines(FILE.join("\n") + "\n") }, GOLD);
    // The insertion after blank line 6 anchors on line 4 (lines 4-6), which does not touch line 8's range.
    expect(answer).toEqual({
      path: "m.py",
      ranges: [
        { why: "a gold hunk", start: 4, end: 6 },
        { why: "a gold hunk", start: 8, end: 8 },
      ],
    });
  });

  it("writes the gold lines inside the range it is asked for, keeping the anchor lines", () => {
    // The answer is a SEARCH/REPLACE block, read back as the Developer's stage reads it.
    const write = (vars: Record<string, string>) => readEditBlock(answerAsOracle("developer-write-code", { path: "m.py", ...vars }, GOLD) as string);
    expect(write({ start: "4", end: "6", old: "    return 1\n\n" })).toEqual({
      ok: true,
      value: { old: "    return 1\n\n", new: "    return 1\n\n\ndef h():\n    return 3\n" },
    });
    expect(write({ start: "8", end: "8", old: "    return 2" })).toEqual({ ok: true, value: { old: "    return 2", new: "    return h()" } });
  });

  it("finds the gold files relevant and to change, and no other", () => {
    const files = showFiles([
      { path: "n.py", summary: "Another module." },
      { path: "m.py", summary: "The module the gold patch changes." },
    ]);
    expect(answerAsOracle("custodian-judge-relevance", { files }, GOLD)).toMatchObject({
      files: [
        { path: "n.py", relevant: false },
        { path: "m.py", relevant: true },
      ],
    });
    expect(answerAsOracle("manager-define-task", { path: "m.py" }, GOLD)).toMatchObject({ needs_change: true });
    expect(answerAsOracle("manager-define-task", { path: "n.py" }, GOLD)).toMatchObject({ needs_change: false });
    expect(answerAsOracle("manager-make-plan", { tasks: "- `m.py`: do it\n- `n.py`: and this" }, GOLD)).toMatchObject({ steps: [["m.py", "n.py"]] });
    expect(answerAsOracle("qa-review", {}, GOLD)).toMatchObject({ approved: true });
  });
});
