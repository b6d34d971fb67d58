// npm run demo — the whole MAGIS pipeline end to end on examples/shop, offline.
//
// By default every model answer comes from a SCRIPTED model (examples/shop-script.ts) served over
// HTTP on 127.0.0.1, so no key is needed and nothing leaves the machine. With `-- --real` the same
// run goes to the model named by OPENAI_API_KEY / OPENAI_BASE_URL / MAGIS_MODEL instead.
//
// Steps: copy the example to a temporary checkout, show its failing test, run `magis resolve
// --test-command "node --test"` (the Manager takes the dynamic way: a Reproducer's script shows the
// issue in the sandbox; it and the tests run before the change and after every Developer attempt),
// show the reproduction and the patch, `git apply` it to a fresh copy and run the example's test there. The work
// folder goes when the demo ends, however it ends; `-- --keep` keeps it (report.md, trace.jsonl) to read afterwards.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { main } from "../src/cli.js";
import { runAsProcess } from "../src/cli/io.js";
import { checkBwrap, DEFAULT_LIMITS } from "../src/sandbox/index.js";
import { startScriptedModel } from "../test/support/scripted-model.js";
import { SCRIPTED_MODEL_NAME, scriptShopDemo } from "./shop-script.js";

const here = import.meta.dirname;
const real = process.argv.includes("--real");
const keep = process.argv.includes("--keep");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-demo-"));
const checkout = path.join(work, "checkout");
const out = path.join(work, "out");
const say = (text: string) => process.stdout.write(`${text}\n`);
const rule = (title: string) => say(`\n=== ${title} ${"=".repeat(Math.max(0, 70 - title.length))}`);

function runTests(dir: string): boolean {
  const run = spawnSync(process.execPath, ["--test"], { cwd: dir, encoding: "utf8" });
  const summary = run.stdout.split("\n").filter((line) => /^# (tests|pass|fail)\b/.test(line) || /^not ok/.test(line));
  say(summary.map((line) => `  ${line}`).join("\n"));
  return run.status === 0;
}

/** The kick-off meeting's turns from the report's transcript section, one `Speaker: words` paragraph each. */
function kickOffTranscript(report: string): string {
  const section = report.split("<summary>Kick-off meeting transcript</summary>")[1]?.split("</details>")[0] ?? "";
  const turns = [...section.matchAll(/^\*\*(.+?)\*\*:\s*\n\s*\n((?:> ?.*\n?)+)/gm)];
  if (turns.length === 0) return "  (the report holds no kick-off transcript)";
  return turns.map(([, speaker, said]) => `  ${speaker}: ${said!.replace(/^> ?/gm, "").trim().replace(/\n/g, "\n    ")}`).join("\n\n");
}

/** The report's Reproduction section: the way and why, the script, and its run before and with the change. */
function reproductionOf(report: string): string {
  const section = report.split("### Reproduction\n")[1]?.split("\n### ")[0];
  if (!section) return "  (the report holds no reproduction)";
  const script = /<summary>The script[^<]*<\/summary>\s*```\w*\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const outputs = [...section.matchAll(/<summary>(Its output [^<]*)<\/summary>\s*```text\n([\s\S]*?)```/g)].map(
    ([, title, text]) => `  ${title}:\n${indent(text!)}`,
  );
  const prose = section
    .split("<details>")[0]!
    .trim()
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => `  ${line}`);
  return [...prose, "", "  The script:", indent(script), ...outputs].join("\n");
}

function indent(text: string): string {
  return text.trimEnd().replace(/^/gm, "    ");
}

/** The demo's steps; returns the exit code. Ctrl-C (`signal`) stops the resolve where it is. */
async function runDemo(signal: AbortSignal): Promise<number> {
  fs.cpSync(path.join(here, "shop"), checkout, { recursive: true });
  rule("1. The example repository and its failing test");
  say(`checkout: ${checkout}`);
  say(`issue:    ${fs.readFileSync(path.join(here, "shop-issue.md"), "utf8").split("\n")[0]}`);
  runTests(checkout);

  const model = real ? null : scriptShopDemo(await startScriptedModel());
  const env: NodeJS.ProcessEnv = real
    ? { ...process.env, MAGIS_DB: path.join(work, "magis.db") }
    : { PATH: process.env.PATH, OPENAI_BASE_URL: model!.url, MAGIS_MODEL: SCRIPTED_MODEL_NAME, MAGIS_DB: path.join(work, "magis.db") };
  rule(real ? "2. magis resolve (real model from OPENAI_* settings)" : "2. magis resolve (SCRIPTED model: canned answers, no LLM is called)");
  // The tests in the loop: the QA Engineers see what they say about every attempt. They run in bubblewrap where it is
  // installed; the example's own tests may run without it (they are this project's code, not a stranger's).
  const sandbox = checkBwrap({ limits: DEFAULT_LIMITS, setupNetwork: false, searchPath: process.env.PATH ?? "" });
  if (!sandbox.ok) say(`no sandbox here (${sandbox.why}): the example's tests run without one (--no-sandbox)`);
  const resolveArgs = ["resolve", "--repo", checkout, "--issue-file", path.join(here, "shop-issue.md"), "--out", out, "--test-command", "node --test"];
  let code: number;
  try {
    code = await main(sandbox.ok ? resolveArgs : [...resolveArgs, "--no-sandbox"], {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(`  ${text}`),
      env,
      cwd: work,
      stopSignal: () => signal,
    });
  } finally {
    await model?.close();
  }
  if (model && model.problems.length > 0) say(`scripted model problems:\n${model.problems.join("\n")}`);
  if (code !== 0) {
    say(`\nmagis resolve exited with ${code}; see above.`);
    return code;
  }

  const report = fs.readFileSync(path.join(out, "report.md"), "utf8");
  rule("3. The reproduction: the dynamic way (from report.md)");
  say(reproductionOf(report));

  rule("4. The kick-off meeting (from report.md)");
  say(kickOffTranscript(report));

  rule("5. The patch (patch.diff)");
  const patch = path.join(out, "patch.diff");
  say(fs.readFileSync(patch, "utf8").trimEnd());

  rule("6. git apply to a fresh copy, then the example's test");
  const fresh = path.join(work, "fresh");
  fs.cpSync(path.join(here, "shop"), fresh, { recursive: true });
  const applied = spawnSync("git", ["apply", "--verbose", patch], { cwd: fresh, encoding: "utf8" });
  say((applied.stdout + applied.stderr).trim().replace(/^/gm, "  "));
  if (applied.status !== 0) return 1;
  const passed = runTests(fresh);

  rule(passed ? "The example's tests pass with the produced patch" : "The example's tests still fail");
  if (keep) {
    say(`report (the pull request description): ${path.join(out, "report.md")}`);
    say(`trace of every model call:               ${path.join(out, "trace.jsonl")}`);
  } else say("The work folder, with report.md (the pull request description) and trace.jsonl, is removed; `npm run demo -- --keep` keeps it.");
  if (!real)
    say(`Every model answer above was SCRIPTED (examples/shop-script.ts); run \`npm run demo -- --real\` with OPENAI_API_KEY set to use a real model.`);
  return passed ? 0 : 1;
}

// However the demo ends (done, a step failing, Ctrl-C), its work folder goes, unless it is to be kept.
void runAsProcess("npm run demo", async (stopSignal) => {
  try {
    // Taken at once: a Ctrl-C at any step ends here, and the work folder goes.
    return await runDemo(stopSignal());
  } finally {
    if (!keep) fs.rmSync(work, { recursive: true, force: true });
  }
});
