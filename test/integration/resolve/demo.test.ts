import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { runInProcessGroup } from "../../support/run-in-process-group.js";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

// The README's first command: it must print what the README says it prints, the kick-off meeting included.
it("npm run demo prints the kick-off meeting, the QA verdicts and the patch, and the example's tests pass with it", async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "magis-demo-test-"));
  dirs.push(tmp);
  const tsx = path.join(ROOT, "node_modules/.bin/tsx");
  const { code, out } = await runInProcessGroup(tsx, ["examples/run-demo.ts"], {
    cwd: ROOT,
    // Its work folder goes under TMPDIR, which this test removes.
    env: { PATH: process.env.PATH, HOME: tmp, TMPDIR: tmp },
    timeoutMs: 120_000,
  });
  expect(code, out).toBe(0);
  expect(out).toMatch(/=== 4\. The kick-off meeting[^\n]*\n {2}Manager: Welcome\. The issue has two causes/);
  // The dynamic way: the Reproducer's script fails on the untouched code and passes with the change.
  expect(out).toContain("Way: dynamic: reproduced by `node reproduce-checkout.mjs`, which failed (exit 1) on the untouched code");
  expect(out).toContain("=== 3. The reproduction: the dynamic way (from report.md)");
  expect(out).toContain("expected $8.50, got $3.5");
  expect(out).toContain("With the change it passed (exit 0): **the issue is gone**.");
  expect(out).toContain("  Cart Arithmetic Specialist: My task is right");
  expect(out).toContain("  Manager: Summary:");
  expect(out).toMatch(/src\/cart\.js: attempt 1 .*QA asked for changes/);
  // The tasks run side by side: a reproduction that still fails with one of them alone is advice, and says so.
  expect(out).toContain(
    "src/format-price.js: attempt 1 (tests: 1 failed, 3 passed; reproduction: failed (exit 1), only advice: this task runs beside others, and the reproduction may pass only with all their changes) approved by QA",
  );
  expect(out).toContain("trailing zero lost.\n");
  expect(out).not.toContain("lost..");
  expect(out).toContain("+    total += item.price * (item.quantity ?? 1);");
  expect(out).toContain("=== The example's tests pass with the produced patch");
  expect(out).toContain("Every model answer above was SCRIPTED");
  // Nothing written in the project's folder, and nothing left in the temp folder.
  expect(fs.existsSync(path.join(ROOT, "examples/shop/.magis"))).toBe(false);
  expect(fs.readdirSync(tmp).filter((name) => name.startsWith("magis-"))).toEqual([]);
}, 150_000);
