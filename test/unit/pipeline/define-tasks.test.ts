import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { showIssue } from "../../../src/pipeline/format-issue.js";
import { defineTasks } from "../../../src/pipeline/plan/define-tasks.js";
import { designDevelopers, uniqueNames } from "../../../src/pipeline/plan/design-developers.js";
import { testContext } from "./context.js";
import { fakeLlm } from "./fake-llm.js";

let root: string;
const issue = showIssue({ title: "Sum is wrong", body: "sum([1,2]) gives 12", hints: ["see math.js"] });

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-define-"));
  fs.writeFileSync(path.join(root, "math.js"), "export const sum = (xs) => xs.join('');\n");
  fs.writeFileSync(path.join(root, "index.js"), "export { sum } from './math.js';\n");
  fs.mkdirSync(path.join(root, ".github/workflows"), { recursive: true });
  fs.writeFileSync(path.join(root, ".github/workflows/ci.yml"), "on: push\n");
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe("defineTasks", () => {
  it("makes a task per kept file that needs a change and sets the rest aside as data, with the Manager's reason", async () => {
    const llm = fakeLlm({
      "manager-define-task": (vars) =>
        vars.path === "math.js"
          ? { needs_change: true, description: "add the numbers" }
          : vars.path === ".github/workflows/ci.yml"
            ? { needs_change: true, description: "run the tests on Node 22" }
            : { needs_change: false, description: "only re-exports sum" },
    });
    const located = [
      { path: "math.js", score: 3, kept: true, summary: "math helpers" },
      { path: "index.js", score: 2, kept: true },
      { path: "README.md", score: 1, kept: false, reason: "Custodian: unrelated" },
      { path: ".github/workflows/ci.yml", score: 0.5, kept: true },
      { path: "gone.js", score: 0.4, kept: true },
    ];
    const result = await defineTasks(testContext(llm, root), issue, located);
    expect(result.tasks).toEqual([{ path: "math.js", description: "add the numbers" }]);
    expect(result.setAside).toEqual([
      { path: "index.js", kind: "no-change", description: "only re-exports sum" },
      { path: ".github/workflows/ci.yml", kind: "needs-human", description: "run the tests on Node 22" },
      { path: "gone.js", kind: "unopenable", description: "'gone.js' does not exist in the repository" },
    ]);
    // The Manager reads the protected file to say what a person must change; the Custodian's dropped file is not asked about.
    expect(llm.calls.map((c) => c.vars.path).sort()).toEqual([".github/workflows/ci.yml", "index.js", "math.js"]);
    expect(llm.calls.find((c) => c.vars.path === "math.js")!.vars.content).toContain("xs.join('')");
    expect(String(llm.calls[0]!.vars.issue)).toContain("- see math.js");
  });
});

describe("designDevelopers", () => {
  it("recruits one Developer per task with unique names", async () => {
    const llm = fakeLlm({ "manager-design-developer": () => ({ name: "Alex", role: "You are careful." }) });
    const tasks = [
      { path: "a.js", description: "x" },
      { path: "b.js", description: "y" },
    ];
    const team = await designDevelopers(testContext(llm), issue, tasks);
    expect(team).toEqual([
      { name: "Alex", path: "a.js", role: "You are careful." },
      { name: "Alex (2)", path: "b.js", role: "You are careful." },
    ]);
  });

  it("never lets a Developer be called Manager", () => {
    expect(uniqueNames([{ name: "Manager", path: "a", role: "r" }])[0]!.name).toBe("Manager (2)");
  });
});

describe("defineTasks on a large file", () => {
  it("shows the Manager the file's outline, which names the functions past the part of the text it sees", async () => {
    const body = Array.from({ length: 60 }, (_, i) => `    total = total + value * ${i}  # accumulate the weighted value\n`).join("");
    const filler = Array.from({ length: 20 }, (_, i) => `def helper_${i}(value):\n    total = 0\n${body}    return total\n\n`).join("");
    fs.writeFileSync(
      path.join(root, "big.py"),
      `class Table:\n    def render(self):\n        return ''\n\n${filler}def merge_header_rows(rows, names):\n    return rows\n`,
    );
    const llm = fakeLlm({ "manager-define-task": () => ({ needs_change: true, description: "fix merge_header_rows" }) });
    await defineTasks(testContext(llm, root), issue, [{ path: "big.py", score: 1, kept: true }]);
    const vars = llm.calls[0]!.vars;
    expect(String(vars.content)).not.toContain("merge_header_rows");
    const outline = String(vars.outline).split("\n");
    expect(outline.slice(0, 3)).toEqual(["class Table  (lines 1-3)", "  def render(self)  (lines 2-3)", "def helper_0(value)  (lines 5-67)"]);
    expect(outline.at(-1)).toBe("def merge_header_rows(rows, names)  (lines 1285-1286)");
  });

  it("keeps in a cut outline the method the issue names, far down a long class", async () => {
    const methods = Array.from({ length: 400 }, (_, i) => `    def column_width_${i}(self, rows):\n        return rows\n`).join("");
    fs.writeFileSync(path.join(root, "table.py"), `class Table:\n${methods}    def merge_header_rows(self, rows):\n        return rows\n`);
    const llm = fakeLlm({ "manager-define-task": () => ({ needs_change: true, description: "fix merge_header_rows" }) });
    const named = showIssue({ title: "Table.merge_header_rows drops the last row", body: "", hints: [] });
    await defineTasks(testContext(llm, root), named, [{ path: "table.py", score: 1, kept: true }]);
    const outline = String(llm.calls[0]!.vars.outline).split("\n");
    expect(outline[0]).toBe("class Table  (lines 1-803)");
    expect(outline.at(-1)).toBe("  def merge_header_rows(self, rows)  (lines 802-803)");
    expect(outline.at(-2)).toMatch(/^ {2}… \(\d+ more definitions, lines \d+-801\)$/);
  });
});
