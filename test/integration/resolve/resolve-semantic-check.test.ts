import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { custodianAnswers } from "../../../examples/script-custodian.js";
import { defineTask, staticWay } from "../../../examples/script-way.js";
import { startResolveRig, type ResolveRig } from "./run-resolve.js";
import { editBlockReply } from "../../support/edit-block-answer.js";

const PRICES = ["def total(items, discount=0):", "    return sum(items) - discount", ""].join("\n");
const CART = ["from shop.prices import total", "", "", "def checkout(items):", "    return total(items)", ""].join("\n");
const line2 = () => ({ path: "shop/prices.py", ranges: [{ start: 2, end: 2, why: "the sum" }] });

let rig: ResolveRig;
/** The files the scripted Custodian finds relevant. */
let relevant: Set<string>;
beforeEach(async () => {
  relevant = new Set(["shop/prices.py"]);
  rig = await startResolveRig({
    issue: "total() ignores taxes\n\n`total()` must add a tax rate to the sum of the items.\n",
    files: { "shop/__init__.py": "", "shop/prices.py": PRICES, "shop/cart.py": CART, ".github/magis.yml": "qa_iterations: 3\n" },
  });
  for (const [prompt, answer] of Object.entries({
    ...custodianAnswers((file) => relevant.has(file)),
    ...staticWay,
    ...defineTask(() => ({ needs_change: true, description: "Give `total` a `rate` parameter and add the tax." })),
  }))
    rig.model.script(prompt, answer);
  rig.model
    .script("manager-design-developer", () => ({ name: "Price Keeper", role: "You own shop/prices.py." }))
    .script("manager-open-meeting", () => ({ speech: "One task: taxes in total()." }))
    .script("developer-speak", () => ({ speech: "I will add the rate." }))
    .script("manager-close-meeting", () => ({ speech: "Price Keeper adds the rate." }))
    .script("developer-refine-role", () => ({ role: "You own total()." }))
    .script("developer-design-qa", () => ({ role: "You check the tax." }));
});
afterEach(() => rig.close());

describe("magis resolve checks each attempt with Pyright", () => {
  it("refuses an attempt that adds an undefined name, shows the callers, and tells QA which were not updated", async () => {
    const { path: file, ranges } = line2();
    rig.model
      .script("developer-locate-lines", { path: file, ranges }, { path: "shop/prices.py", ranges: [{ start: 1, end: 2, why: "the signature and the sum" }] })
      .script(
        "developer-write-code",
        editBlockReply("    return sum(items) - discount", "    return summ(items) * (1 + rate) - discount"),
        editBlockReply(PRICES.trimEnd(), "def total(items, rate, discount=0):\n    return sum(items) * (1 + rate) - discount"),
      )
      .script("qa-review", { approved: true, comment: "Adds the tax." });
    const run = await rig.resolve();
    expect(rig.model.problems).toEqual([]);
    expect(run.code, run.stderr).toBe(0);

    // The Developer was shown where `total` is used before its first attempt.
    const located = rig.model.requests.filter((r) => r.prompt === "developer-locate-lines").map((r) => r.messages.at(-1)!.content);
    expect(located[0]).toContain("`total` (line 1) is used at:\n- shop/cart.py:5: return total(items)");
    // The first attempt was refused with Pyright's words, and the Developer was told.
    expect(located[1]).toContain(
      'Your attempt 1 was refused: your change adds errors that Pyright reports and `shop/prices.py` did not have (line 2, column 12: "summ" is not defined (reportUndefinedVariable); line 2, column 31: "rate" is not defined (reportUndefinedVariable))',
    );
    // QA was told the signature changed and that the caller in cart.py was left as it was.
    const review = rig.model.requests.find((r) => r.prompt === "qa-review")!.messages.at(-1)!.content;
    expect(review).toContain("The header of `total` changes to `def total(items, rate, discount=0)`. Its uses (lines as before the change), 1 not updated:");
    expect(review).toContain("- shop/cart.py:5: return total(items) — NOT UPDATED (this task does not change that file)");
    const report = fs.readFileSync(path.join(rig.out, "report.md"), "utf8");
    expect(report).toContain("- **Attempt 1** — refused before review: your change adds errors that Pyright reports");
  });

  it("checks a later step's file against the earlier steps' changes: a caller fitting the new signature passes", async () => {
    const files = ["shop/prices.py", "shop/cart.py"];
    relevant.add("shop/cart.py");
    const fileOf = (content: string) => files.find((file) => content.includes(`\`${file}\``))!;
    rig.model
      .script("manager-make-plan", () => ({ steps: [["shop/prices.py"], ["shop/cart.py"]], rationale: "cart.py calls total()." }))
      .script("developer-locate-lines", (r) =>
        fileOf(r.messages.at(-1)!.content) === "shop/prices.py"
          ? { path: "shop/prices.py", ranges: [{ start: 1, end: 2, why: "the signature and the sum" }] }
          : { path: "shop/cart.py", ranges: [{ start: 5, end: 5, why: "the call" }] },
      )
      .script("developer-write-code", (r) =>
        fileOf(r.messages.at(-1)!.content) === "shop/prices.py"
          ? editBlockReply(PRICES.trimEnd(), "def total(items, rate, discount=0):\n    return sum(items) * (1 + rate) - discount")
          : editBlockReply("    return total(items)", "    return total(items, 0.2, 5)"),
      )
      .script("qa-review", () => ({ approved: true, comment: "Fits." }));
    const run = await rig.resolve();
    expect(rig.model.problems).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    // Against the untouched prices.py, `total(items, 0.2, 5)` has one argument too many; after the first step it fits.
    const located = rig.model.requests.filter((r) => r.prompt === "developer-locate-lines").map((r) => fileOf(r.messages.at(-1)!.content));
    expect(located, fs.readFileSync(path.join(rig.out, "report.md"), "utf8")).toEqual(["shop/prices.py", "shop/cart.py"]);
    const report = fs.readFileSync(path.join(rig.out, "report.md"), "utf8");
    expect(report).not.toContain("refused before review");
  });

  it("with diagnostics.enabled false, the same attempt goes to review", async () => {
    fs.writeFileSync(path.join(rig.checkout, ".github/magis.yml"), "qa_iterations: 1\ndiagnostics:\n  enabled: false\n");
    const { path: file, ranges } = line2();
    rig.model
      .script("developer-locate-lines", { path: file, ranges })
      .script("developer-write-code", editBlockReply("    return sum(items) - discount", "    return summ(items) - discount"))
      .script("qa-review", { approved: false, comment: "summ is not a function." });
    const run = await rig.resolve();
    expect(run.code).toBe(1);
    const review = rig.model.requests.find((r) => r.prompt === "qa-review")!.messages.at(-1)!.content;
    expect(review).toContain("(not looked up: no language server runs here)");
  });
});
