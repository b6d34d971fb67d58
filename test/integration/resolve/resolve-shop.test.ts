import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SHOP_WAY, scriptShopDemo } from "../../../examples/shop-script.js";
import { startResolveRig, type ResolveRig } from "./run-resolve.js";

const examples = path.resolve(import.meta.dirname, "../../../examples");
// What an attempt's progress line adds when its task runs beside others: the reproduction's run is advice to QA.
const ADVICE = ", only advice: this task runs beside others, and the reproduction may pass only with all their changes";
let rig: ResolveRig;

beforeEach(async () => {
  rig = await startResolveRig({ from: path.join(examples, "shop"), issue: fs.readFileSync(path.join(examples, "shop-issue.md"), "utf8") });
});
afterEach(() => rig.close());

/** The speakers of the report's kick-off transcript, in order. */
function speakers(report: string): string[] {
  const start = report.indexOf("<summary>Kick-off meeting transcript</summary>");
  const section = report.slice(start, report.indexOf("</details>", start));
  return [...section.matchAll(/^\*\*(.+?)\*\*:$/gm)].map((m) => m[1]!);
}

describe("magis resolve on the example shop, over HTTP against the scripted model", () => {
  it("writes a patch that applies to the untouched checkout and makes the example's tests pass", async () => {
    scriptShopDemo(rig.model);
    const before = rig.snapshot();
    const run = await rig.resolve();
    expect(run.stderr).not.toContain("no patch");
    expect(run.code).toBe(0);
    expect(rig.model.problems).toEqual([]);

    const after = rig.snapshot();
    for (const [file, text] of before) expect(after.get(file), file).toBe(text);
    const added = [...after.keys()].filter((file) => !before.has(file));
    expect(
      added.every((file) => file.startsWith(`out${path.sep}`)),
      added.join(", "),
    ).toBe(true);
    expect(added).toEqual(expect.arrayContaining(["out/patch.diff", "out/report.md", "out/trace.jsonl"].map(path.normalize)));

    const patch = path.join(rig.out, "patch.diff");
    expect(spawnSync("git", ["apply", "--check", patch], { cwd: rig.checkout }).status).toBe(0);
    const copy = path.join(rig.work, "applied");
    fs.cpSync(rig.checkout, copy, { recursive: true });
    expect(spawnSync("git", ["apply", patch], { cwd: copy }).status).toBe(0);
    const test = spawnSync(process.execPath, ["--test"], { cwd: copy, encoding: "utf8" });
    expect(test.stdout).toContain("# fail 0");

    const trace = fs.readFileSync(path.join(rig.out, "trace.jsonl"), "utf8").trim().split("\n");
    expect(trace).toHaveLength(rig.model.requests.length);
    expect(run.stdout).toContain("2 files changed: ");
  });

  it("reports the kick-off transcript with the Manager first and last and every Developer once, in team order", async () => {
    scriptShopDemo(rig.model);
    const run = await rig.resolve();
    expect(run.code).toBe(0);
    const team = /team formed: (.*)\n/
      .exec(run.stderr)![1]!
      .split(", ")
      .map((member) => member.replace(/ \([^)]*\)$/, ""));
    expect(team).toHaveLength(2);
    const report = fs.readFileSync(path.join(rig.out, "report.md"), "utf8");
    expect(speakers(report)).toEqual(["Manager", ...team, "Manager"]);
    // Each Developer heard everything said before it.
    const speeches = rig.model.requests.filter((r) => r.prompt === "developer-speak");
    const heard = speeches.map((r) =>
      [
        ...r.messages
          .map((m) => m.content)
          .join("\n")
          .matchAll(/^(Manager|Cart Arithmetic Specialist|Currency Formatting Expert): /gm),
      ].map((m) => m[1]),
    );
    expect(heard).toEqual([["Manager"], ["Manager", team[0]]]);
  });

  it("reports the plan, tasks, every QA comment, located files and usage", async () => {
    scriptShopDemo(rig.model);
    expect((await rig.resolve()).code).toBe(0);
    const report = fs.readFileSync(path.join(rig.out, "report.md"), "utf8");
    expect(report).toContain("1. `src/cart.js`, `src/format-price.js` (concurrently)");
    expect(report).toMatch(/\| `src\/cart\.js` \| .* \| \*\*Cart Arithmetic Specialist\*\*: .* \| 2 \| approved \| yes \|/);
    expect(report).toMatch(/\| `src\/format-price\.js` \| .* \| 1 \| approved \| yes \|/);
    expect(report).toContain("- **Attempt 1** — changes requested: Quantities are counted now, but an item saved without a `quantity` makes the total NaN.");
    expect(report).toContain("| `src/index.js` |");
    expect(report).toMatch(/Manager: no change needed: src\/index\.js only re-exports/);
    expect(report).toMatch(/\| developer \| `scripted` \| \d+ \|/);
  });

  it("prints progress lines on stderr as stages finish", async () => {
    scriptShopDemo(rig.model);
    const run = await rig.resolve();
    const order = [
      "located ",
      "Way: dynamic (The issue shows a wrong total on the checkout page",
      "Way: dynamic: reproduced by `node reproduce-checkout.mjs`, which failed (exit 1) on the untouched code",
      "Manager defined 2 task(s)",
      "team formed: ",
      "kick-off meeting held: 4 turns",
      "plan: step 1: ",
      // The two tasks run side by side: the reproduction passes only with both changes, so each attempt's run is advice.
      `src/cart.js: attempt 1 (reproduction: failed (exit 1)${ADVICE}) QA asked for changes`,
      `src/cart.js: attempt 2 (reproduction: failed (exit 1)${ADVICE}) approved by QA`,
      "with the change it passed (exit 0): the issue is gone",
      "done: 2 file(s) changed",
    ];
    const at = order.map((line) => run.stderr.indexOf(line));
    expect(
      at.every((i) => i >= 0),
      run.stderr,
    ).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it("writes the change into the checkout only with --apply", async () => {
    scriptShopDemo(rig.model);
    expect((await rig.resolve(["--apply"])).code).toBe(0);
    expect(fs.readFileSync(path.join(rig.checkout, "src/cart.js"), "utf8")).toContain("item.price * (item.quantity ?? 1)");
    expect(spawnSync(process.execPath, ["--test"], { cwd: rig.checkout, encoding: "utf8" }).stdout).toContain("# fail 0");
  });

  it("exits non-zero with the reason when every task fails, writing no patch", async () => {
    scriptShopDemo(rig.model, { "qa-review": () => ({ approved: false, comment: "Not convinced." }) });
    const run = await rig.resolve();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/magis resolve: no patch\. The code stage failed: Every coding task failed, so there is no patch \(/);
    expect(run.stderr).toContain("src/cart.js: 3 attempts, not approved by QA (last comment: Not convinced.)");
    expect(run.stderr).toContain("keep_unapproved");
    expect(fs.existsSync(path.join(rig.out, "patch.diff"))).toBe(false);
    expect(fs.existsSync(path.join(rig.out, "trace.jsonl"))).toBe(true);
  });

  it("exits non-zero with the reason when the Manager finds nothing to change", async () => {
    const nothing = { description: "It already does what the issue asks.", needs_change: false };
    scriptShopDemo(rig.model, { "manager-define-task": () => nothing, "manager-define-task-and-way": () => ({ ...nothing, way: SHOP_WAY }) });
    const run = await rig.resolve();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /no patch\. The plan stage failed: The Manager found nothing to change in the located files, so there is nothing to code \(src\/cart\.js: no change needed: It already does what the issue asks\.;/,
    );
    expect(run.stderr).toContain("Next: Name the file to change");
    // No Developer was asked to change code, nor the Reproducer to show the issue: with no task there is nothing to fix.
    expect(rig.model.requests.some((r) => r.prompt?.startsWith("developer-"))).toBe(false);
  });

  it("works with a server that ignores response_format and wraps its JSON in prose", async () => {
    await rig.close();
    rig = await startResolveRig({
      from: path.join(examples, "shop"),
      issue: fs.readFileSync(path.join(examples, "shop-issue.md"), "utf8"),
      model: { honourJsonSchema: false },
    });
    scriptShopDemo(rig.model);
    const run = await rig.resolve();
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readFileSync(path.join(rig.out, "patch.diff"), "utf8")).toContain("+    total += item.price * (item.quantity ?? 1);");
  });
});

describe("magis resolve on the example shop with its tests in the loop (test_command: node --test)", () => {
  const withTests = (extra = "") => {
    fs.mkdirSync(path.join(rig.checkout, ".github"), { recursive: true });
    fs.writeFileSync(path.join(rig.checkout, ".github/magis.yml"), `test_command: node --test\n${extra}`);
  };
  const cartQuantity = "cartTotal counts every unit of an item";
  const noQuantity = "cartTotal counts an item saved without a quantity once";
  const twoDecimals = "formatPrice always shows two decimals";

  it("runs the tests before the change and with it, and the report shows them failing, then passing", async () => {
    withTests();
    scriptShopDemo(rig.model);
    const run = await rig.resolve();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("Tests (`node --test`, in bubblewrap) before the change: 2 failed, 2 passed");
    expect(run.stderr).toContain("Tests (`node --test`, in bubblewrap) with the change: 0 failed, 4 passed, before it: 2 failed, 2 passed");
    const report = fs.readFileSync(path.join(rig.out, "report.md"), "utf8");
    const section = report.slice(report.indexOf("### Tests"), report.indexOf("### Plan"));
    expect(section).toContain("`node --test` ran on the untouched checkout and with the whole change:");
    expect(section).toContain("| Before the change | 2 | 2 | 0 | failed (exit 1) |");
    expect(section).toContain("| With the change | 0 | 4 | 0 | passed (exit 0) |");
    expect(section).toContain(`Now passing: \`${cartQuantity}\`, \`${twoDecimals}\`.`);
    expect(section).not.toContain("Newly failing");

    // The QA Engineer of cart.js saw its first attempt break a passing test (an item without a quantity is NaN).
    const reviews = rig.model.requests.filter((r) => r.prompt === "qa-review" && userOf(r).includes("`src/cart.js`"));
    expect(userOf(reviews[0]!)).toContain(`- Newly failing: \`${noQuantity}\`.`);
    expect(userOf(reviews[0]!)).toContain("This change breaks what worked");
    expect(userOf(reviews[1]!)).toContain("- With the change: 1 failed, 3 passed");
    expect(userOf(reviews[1]!)).not.toContain("Newly failing");
  });

  it("a QA Engineer that approves an attempt breaking a passing test is overruled; the next attempt is kept", async () => {
    withTests();
    scriptShopDemo(rig.model, { "qa-review": () => ({ approved: true, comment: "Looks right to me." }) });
    const run = await rig.resolve();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /src\/cart\.js: attempt 1 \(tests: 2 failed, 2 passed; newly failing: `cartTotal counts an item saved without a quantity once`; reproduction: failed \(exit 1\), only advice: [^)]*\) QA asked for changes: Not approved because the tests say no: tests that did not fail before this change fail with it: `cartTotal counts an item saved without a quantity once`/,
    );
    expect(run.stderr).toContain(`src/cart.js: attempt 2 (tests: 1 failed, 3 passed; reproduction: failed (exit 1)${ADVICE}) approved by QA`);
    // The Developer's second attempt was told which test it broke.
    const writes = rig.model.requests.filter((r) => r.prompt === "developer-write-code" && userOf(r).includes("`src/cart.js`"));
    expect(userOf(writes[1]!)).toContain(`- Newly failing: \`${noQuantity}\`.`);
    expect(fs.readFileSync(path.join(rig.out, "patch.diff"), "utf8")).toContain("item.price * (item.quantity ?? 1)");
    const report = fs.readFileSync(path.join(rig.out, "report.md"), "utf8");
    expect(report).toContain("- **Attempt 1** — changes requested: Not approved because the tests say no:");
    expect(report).toContain(`The reproduction with it: failed (exit 1)${ADVICE}.`);
    expect(report).toContain("| With the change | 0 | 4 | 0 | passed (exit 0) |");
  });

  it("with --no-sandbox: runs the tests as the user, and says they ran uncontained", async () => {
    scriptShopDemo(rig.model);
    const run = await rig.resolve(["--test-command", "node --test", "--no-sandbox"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("Tests (`node --test`, uncontained) with the change: 0 failed, 4 passed, before it: 2 failed, 2 passed");
    expect(fs.readFileSync(path.join(rig.out, "report.md"), "utf8")).toContain("They ran without a sandbox, as the bot's own user");
  });

  it("takes the tests from --test-command as from test_command, with no .github/magis.yml in the checkout", async () => {
    scriptShopDemo(rig.model);
    const run = await rig.resolve(["--test-command", "node --test"]);
    expect(run.code, run.stderr).toBe(0);
    expect(fs.existsSync(path.join(rig.checkout, ".github"))).toBe(false);
    expect(run.stderr).toContain("Tests (`node --test`, in bubblewrap) before the change: 2 failed, 2 passed");
    expect(run.stderr).toContain(
      `src/cart.js: attempt 1 (tests: 2 failed, 2 passed; newly failing: \`cartTotal counts an item saved without a quantity once\`; reproduction: failed (exit 1)${ADVICE})`,
    );
    expect(run.stderr).toContain("Tests (`node --test`, in bubblewrap) with the change: 0 failed, 4 passed, before it: 2 failed, 2 passed");
    const report = fs.readFileSync(path.join(rig.out, "report.md"), "utf8");
    expect(report).toContain("| With the change | 0 | 4 | 0 | passed (exit 0) |");
    expect(spawnSync("git", ["apply", "--check", path.join(rig.out, "patch.diff")], { cwd: rig.checkout }).status).toBe(0);
  });

  it("lets --test-command win over the file's test_command, the file's setup_command still running first", async () => {
    fs.mkdirSync(path.join(rig.checkout, ".github"));
    fs.writeFileSync(path.join(rig.checkout, ".github/magis.yml"), "test_command: exit 7\nsetup_command: echo set up > setup-ran\n");
    scriptShopDemo(rig.model);
    const run = await rig.resolve(["--test-command", "test -f setup-ran && node --test"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("Tests (`test -f setup-ran && node --test`, in bubblewrap) before the change: 2 failed, 2 passed");
    expect(run.stderr).not.toContain("exit 7");
    expect(fs.existsSync(path.join(rig.checkout, "setup-ran")), "the setup ran in a copy, not in the checkout").toBe(false);
    // The report says where the environment was declared and how it was made ready.
    const report = fs.readFileSync(path.join(rig.out, "report.md"), "utf8");
    expect(report).toMatch(/### Environment\n\nEnvironment from \.github\/magis\.yml setup_command: built in \d+(\.\d)? s \(setup_command\)/);
  });

  it("goes on without tests, and says so, when the setup command fails", async () => {
    withTests("setup_command: echo installing; exit 3\n");
    scriptShopDemo(rig.model);
    const run = await rig.resolve();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("Tests (`node --test`, in bubblewrap) not used: the setup command failed (exit 3)");
    const report = fs.readFileSync(path.join(rig.out, "report.md"), "utf8");
    expect(report).toContain("`node --test` was not used: the setup command failed (exit 3). The change was judged by the QA Engineers' reading alone.");
    expect(report).toContain("installing");
    expect(
      rig.model.requests
        .find((r) => r.prompt === "qa-review")!
        .messages.map((m) => m.content)
        .join("\n"),
    ).toContain("The repository's tests were not run for this change");
  });
});

function userOf(request: { messages: { role: string; content: string }[] }): string {
  return request.messages
    .filter((m) => m.role === "user")
    .map((m) => m.content)
    .join("\n");
}
