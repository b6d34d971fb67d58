import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scriptShopDemo } from "../../../examples/shop-script.js";
import { escapeHtml } from "../../../src/lib/escape-html.js";
import { startResolveRig, type ResolveRig } from "./run-resolve.js";

const examples = path.resolve(import.meta.dirname, "../../../examples");
let rig: ResolveRig;

beforeEach(async () => {
  rig = await startResolveRig({ from: path.join(examples, "shop"), issue: fs.readFileSync(path.join(examples, "shop-issue.md"), "utf8") });
});
afterEach(() => rig.close());

describe("magis resolve --out DIR writes DIR/session.html", () => {
  it("with the run's stages, its model calls, its diff and its outcome, as one page without script", async () => {
    scriptShopDemo(rig.model);
    const run = await rig.resolve();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`session: ${path.join(rig.out, "session.html")}`);
    const page = fs.readFileSync(path.join(rig.out, "session.html"), "utf8");
    for (const stage of ["locate", "plan", "kickoff", "code"]) expect(page).toContain(`data-stage="${stage}"`);
    // A line the patch adds, shown on the page as text.
    const patch = fs.readFileSync(path.join(rig.out, "patch.diff"), "utf8");
    const added = patch.split("\n").find((line) => line.startsWith("+") && !line.startsWith("+++") && line.trim().length > 8)!;
    expect(page).toContain(escapeHtml(added.slice(1).trim()));
    for (const prompt of ["manager-define-task", "qa-review"]) expect(page).toContain(prompt);
    expect(page).not.toMatch(/<script/i);
    expect(page).toContain(`<span class="outcome succeeded">succeeded</span>`);
  });

  it("when the run fails too, saying in which stage", async () => {
    // No answer scripted: the model's first call fails, in the locate stage.
    const run = await rig.resolve();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(path.join(rig.out, "session.html"));
    const page = fs.readFileSync(path.join(rig.out, "session.html"), "utf8");
    expect(page).toMatch(/<span class="outcome failed">failed<\/span> in locate/);
    expect(page).toContain(`data-stage="locate"`);
  });
});
