import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { showIssue } from "../../../src/pipeline/format-issue.js";
import { runCodingTasks } from "../../../src/pipeline/code/index.js";
import type { DeveloperRole, FileTask } from "../../../src/pipeline/types.js";
import { testContext } from "./context.js";
import { fakeLlm } from "./fake-llm.js";
import { editBlockAnswer } from "../../support/edit-block-answer.js";

const issue = showIssue({ title: "Totals ignore quantity", body: "cartTotal is wrong", hints: [] });
const CART = [
  "export function cartTotal(items) {",
  "  let total = 0;",
  "  for (const item of items) {",
  "    total += item.price;",
  "  }",
  "  return total;",
  "}",
  "",
].join("\n");
const FORMAT = ["export function formatPrice(cents) {", "  return `$${cents / 100}`;", "}", ""].join("\n");

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-code-"));
  fs.mkdirSync(path.join(root, "src"));
  fs.writeFileSync(path.join(root, "src/cart.js"), CART);
  fs.writeFileSync(path.join(root, "src/format.js"), FORMAT);
  fs.mkdirSync(path.join(root, ".github/workflows"), { recursive: true });
  fs.writeFileSync(path.join(root, ".github/workflows/ci.yml"), "on: push\n");
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const cartTask: FileTask = { path: "src/cart.js", description: "multiply by quantity" };
const formatTask: FileTask = { path: "src/format.js", description: "two decimals" };
const ada: DeveloperRole = { name: "Ada", path: "src/cart.js", role: "You own the cart." };
const bob: DeveloperRole = { name: "Bob", path: "src/format.js", role: "You own formatting." };

const goodCart = { path: "src/cart.js", ranges: [{ start: 4, end: 4, why: "sum" }] };
const goodCode = editBlockAnswer("    total += item.price;", "    total += item.price * item.quantity;");
const approve = { approved: true, comment: "Good." };

/** A fake model for one cart task: locate/write answers per attempt, QA approving whatever compiles. */
function cartModel(locate: unknown[], write: unknown[], review: unknown[] = [approve]) {
  return fakeLlm({
    "developer-design-qa": () => ({ role: "You check sums." }),
    "developer-locate-lines": (_v, n) => locate[Math.min(n, locate.length - 1)],
    "developer-write-code": (_v, n) => write[Math.min(n, write.length - 1)],
    "qa-review": (_v, n) => review[Math.min(n, review.length - 1)],
  });
}

const onePlan = { steps: [["src/cart.js"]], rationale: "one" };

describe("runCodingTasks", () => {
  it("keeps an approved change with its diff, in memory only", async () => {
    const ctx = testContext(cartModel([goodCart], [goodCode]), root);
    const [outcome] = await runCodingTasks(ctx, issue, { tasks: [cartTask], developers: [ada], plan: onePlan });
    expect(outcome).toMatchObject({ path: "src/cart.js", approved: true, kept: true, qaRole: "You check sums." });
    expect(outcome!.after).toContain("total += item.price * item.quantity;");
    expect(outcome!.diff).toContain("-    total += item.price;\n+    total += item.price * item.quantity;");
    expect(fs.readFileSync(path.join(root, "src/cart.js"), "utf8")).toBe(CART);
    expect(ctx.events.map((e) => e.stage)).toEqual(["attempt", "task-done"]);
  });

  it("shows the Developer the file's outline, keeping in a long one the function its task names", async () => {
    const helpers = Array.from({ length: 300 }, (_, i) => `export function roundPrice${i}(cents) {\n  return cents;\n}\n`).join("");
    fs.writeFileSync(path.join(root, "src/cart.js"), `${helpers}${CART}`);
    const llm = cartModel([{ path: "src/cart.js", ranges: [{ start: 904, end: 904, why: "sum" }] }], [goodCode]);
    await runCodingTasks(testContext(llm, root), issue, { tasks: [cartTask], developers: [ada], plan: onePlan });
    const outline = String(llm.calls.find((call) => call.prompt === "developer-locate-lines")!.vars.outline).split("\n");
    expect(outline[0]).toBe("function roundPrice0(cents)  (lines 1-3)");
    expect(outline.at(-1)).toBe("function cartTotal(items)  (lines 901-907)");
    expect(outline.at(-2)).toMatch(/^… \(\d+ more definitions, lines \d+-900\)$/);
  });

  it("feeds a QA comment and the rejected diff into the next attempt", async () => {
    const llm = cartModel([goodCart], [goodCode], [{ approved: false, comment: "Handle a missing quantity." }, approve]);
    const [outcome] = await runCodingTasks(testContext(llm, root), issue, { tasks: [cartTask], developers: [ada], plan: onePlan });
    expect(outcome!.attempts.map((a) => a.review?.approved)).toEqual([false, true]);
    const second = llm.calls.filter((c) => c.prompt === "developer-locate-lines")[1]!;
    expect(second.vars.feedback).toContain("The QA Engineer did not approve it: Handle a missing quantity.");
    expect(second.vars.feedback).toContain("+    total += item.price * item.quantity;");
  });

  // Each refusal of issue 4's "Must hold": precise feedback, counted as an attempt, nothing applied.
  const refusals: [string, unknown, unknown, RegExp][] = [
    [
      "a path outside the repository",
      { path: "../outside.js", ranges: [{ start: 1, end: 1, why: "" }] },
      goodCode,
      /'\.\.\/outside\.js' points outside the repository/,
    ],
    [
      "a protected path",
      { path: ".github/workflows/ci.yml", ranges: [{ start: 1, end: 1, why: "" }] },
      goodCode,
      /'\.github\/workflows\/ci\.yml' is protected \(it matches `\.github\/\*\*` in protected_paths\); it must not be changed/,
    ],
    [
      "a file that does not exist",
      { path: "src/nope.js", ranges: [{ start: 1, end: 1, why: "" }] },
      goodCode,
      /'src\/nope\.js' does not exist in the repository\. Your task is on `src\/cart\.js`/,
    ],
    ["another task's file", { path: "src/format.js", ranges: [{ start: 1, end: 1, why: "" }] }, goodCode, /'src\/format\.js' is not your file/],
    ["lines past the end", { path: "src/cart.js", ranges: [{ start: 6, end: 12, why: "" }] }, goodCode, /range 6-12 is outside the file, which has 7 lines/],
    [
      "overlapping lines",
      {
        path: "src/cart.js",
        ranges: [
          { start: 2, end: 4, why: "" },
          { start: 4, end: 5, why: "" },
        ],
      },
      goodCode,
      /ranges 2-4 and 4-5 overlap/,
    ],
    [
      "an ambiguous anchor",
      { path: "src/cart.js", ranges: [{ start: 4, end: 4, why: "" }] },
      editBlockAnswer("    go();", "    stop();"),
      /fits 2 places equally well/,
    ],
    [
      "broken syntax",
      goodCart,
      editBlockAnswer("    total += item.price;", "    total += item.price * (item.quantity;"),
      /adds syntax errors that `src\/cart\.js` did not have \(line 4, column \d+/,
    ],
    [
      "an elided old whose new drops the skipped lines",
      { path: "src/cart.js", ranges: [{ start: 1, end: 7, why: "" }] },
      editBlockAnswer("export function cartTotal(items) {\n  // ...\n}", "export function cartTotal(items) {\n  return 0;\n}"),
      /`old` skips 1 run\(s\) of lines with "\.\.\." \(lines 2-6\) but `new` has 0 such marker\(s\)/,
    ],
    ["an empty change", goodCart, editBlockAnswer("    total += item.price;", "    total += item.price;"), /leave `src\/cart\.js` unchanged/],
    ["no range at all", { path: "src/cart.js", ranges: [] }, goodCode, /you gave no line range/],
  ];

  it.each(refusals)("refuses %s with precise feedback and counts it as an attempt", async (_name, locate, write, message) => {
    // "    go();" sits one line above and one line below the named line 4: no nearest place to pick.
    const ambiguousFile = ["function a(x) {", "  if (x) {", "    go();", "  } else {", "    go();", "  }", "}", ""].join("\n");
    if (_name === "an ambiguous anchor") fs.writeFileSync(path.join(root, "src/cart.js"), ambiguousFile);
    const llm = cartModel([locate, goodCart], [write, goodCode]);
    const ctx = testContext(llm, root, { qa_iterations: 2 });
    const [outcome] = await runCodingTasks(ctx, issue, { tasks: [cartTask], developers: [ada], plan: onePlan });
    expect(outcome!.attempts[0]!.error).toMatch(message);
    expect(outcome!.attempts[0]!.review).toBeUndefined();
    const retry = llm.calls.filter((c) => c.prompt === "developer-locate-lines")[1]!;
    expect(retry.vars.feedback).toMatch(message);
    expect(retry.vars.feedback).toContain("Your attempt 1 was refused");
    expect(fs.existsSync(path.join(root, "..", "outside.js"))).toBe(false);
    expect(fs.readFileSync(path.join(root, ".github/workflows/ci.yml"), "utf8")).toBe("on: push\n");
  });

  it("refuses a file reached through a symbolic link (a protected file under another name), without asking the model", async () => {
    fs.symlinkSync("../.github/workflows/ci.yml", path.join(root, "src/ci.yml"));
    fs.symlinkSync("../.github/workflows", path.join(root, "src/flows"));
    for (const linked of ["src/ci.yml", "src/flows/ci.yml"]) {
      const llm = cartModel([goodCart], [goodCode]);
      const task: FileTask = { path: linked, description: "edit the workflow" };
      const [outcome] = await runCodingTasks(testContext(llm, root), issue, {
        tasks: [task],
        developers: [{ ...ada, path: linked }],
        plan: { steps: [[linked]], rationale: "one" },
      });
      expect(outcome!.attempts[0]!.error).toMatch(/is a symbolic link or lies under one/);
      expect(outcome!.kept).toBe(false);
      expect(llm.calls).toEqual([]);
    }
    expect(fs.readFileSync(path.join(root, ".github/workflows/ci.yml"), "utf8")).toBe("on: push\n");
  });

  it("stops after qa_iterations and drops an unapproved change unless keep_unapproved", async () => {
    const reject = { approved: false, comment: "Still wrong." };
    for (const keep of [false, true]) {
      const llm = cartModel([goodCart], [goodCode], [reject]);
      const [outcome] = await runCodingTasks(testContext(llm, root, { qa_iterations: 3, keep_unapproved: keep }), issue, {
        tasks: [cartTask],
        developers: [ada],
        plan: onePlan,
      });
      expect(outcome!.attempts).toHaveLength(3);
      expect(outcome!.approved).toBe(false);
      expect(outcome!.kept).toBe(keep);
      expect(outcome!.diff === "").toBe(!keep);
    }
  });

  it("makes human review comments the first attempt's feedback", async () => {
    const llm = cartModel([goodCart], [goodCode]);
    await runCodingTasks(testContext(llm, root), issue, {
      tasks: [cartTask],
      developers: [ada],
      plan: onePlan,
      feedback: [
        { path: "src/cart.js", comments: [{ line: 4, body: "Multiply by the quantity here." }] },
        { path: "src/other.js", comments: [{ body: "unrelated" }] },
      ],
    });
    const first = String(llm.calls.find((c) => c.prompt === "developer-locate-lines")!.vars.feedback);
    expect(first).toBe("A human reviewer commented on this file:\n- On line 4: Multiply by the quantity here.");
  });

  it("shows later plan steps the kept diffs of earlier ones, and runs one step's tasks concurrently", async () => {
    let active = 0;
    let most = 0;
    const slow = async <T>(value: T) => {
      active += 1;
      most = Math.max(most, active);
      await new Promise((r) => setTimeout(r, 20));
      active -= 1;
      return value;
    };
    const answers = () =>
      fakeLlm({
        "developer-design-qa": () => slow({ role: "QA" }),
        "developer-locate-lines": (v) => slow(v.path === "src/cart.js" ? goodCart : { path: "src/format.js", ranges: [{ start: 2, end: 2, why: "" }] }),
        "developer-write-code": (v) =>
          slow(v.path === "src/cart.js" ? goodCode : editBlockAnswer("  return `$${cents / 100}`;", "  return `$${(cents / 100).toFixed(2)}`;")),
        "qa-review": () => slow(approve),
      });
    const sequential = answers();
    await runCodingTasks(testContext(sequential, root), issue, {
      tasks: [cartTask, formatTask],
      developers: [ada, bob],
      plan: { steps: [["src/cart.js"], ["src/format.js"]], rationale: "" },
    });
    expect(most).toBe(1);
    const formatCall = sequential.calls.find((c) => c.prompt === "developer-locate-lines" && c.vars.path === "src/format.js")!;
    expect(formatCall.vars.earlier_changes).toContain("+    total += item.price * item.quantity;");
    expect(sequential.calls.find((c) => c.prompt === "developer-locate-lines" && c.vars.path === "src/cart.js")!.vars.earlier_changes).toBe("(none yet)");

    most = 0;
    const parallel = answers();
    const outcomes = await runCodingTasks(testContext(parallel, root), issue, {
      tasks: [cartTask, formatTask],
      developers: [ada, bob],
      plan: { steps: [["src/cart.js", "src/format.js"]], rationale: "" },
    });
    expect(most).toBe(2);
    expect(outcomes.every((o) => o.kept)).toBe(true);

    most = 0;
    await runCodingTasks(testContext(answers(), root, { concurrency: 1 }), issue, {
      tasks: [cartTask, formatTask],
      developers: [ada, bob],
      plan: { steps: [["src/cart.js", "src/format.js"]], rationale: "" },
    });
    expect(most).toBe(1);
  });

  it("rejects a plan that does not fit the tasks", async () => {
    await expect(
      runCodingTasks(testContext(fakeLlm({}), root), issue, { tasks: [cartTask], developers: [ada], plan: { steps: [["src/x.js"]], rationale: "" } }),
    ).rejects.toThrow(/The plan does not fit the tasks: step 1 names "src\/x\.js", which is not a task; "src\/cart\.js" is missing/);
  });
});
