import { afterEach, describe, expect, it } from "vitest";
import { startResolveRig, type ResolveRig } from "../resolve/run-resolve.js";
import { asked, MEAN_FILES, MEAN_ISSUE, REPRODUCTION, scriptMean } from "../reproduce/script-mean.js";

let rig: ResolveRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

// Every text of the dynamic way that goes back into a prompt is bounded, however long the model or the repository made it.
describe("the dynamic way's prompts", () => {
  it("get a 225,000-character reason and a 120,000-character command cut, in the Reproducer's and the Developer's prompts", async () => {
    rig = await startResolveRig({ issue: MEAN_ISSUE, files: MEAN_FILES });
    // A command that runs (node ignores the argument) and is as long as one argument may be.
    const long = { ...REPRODUCTION, command: `${REPRODUCTION.command} ${"a".repeat(120_000)}` };
    scriptMean(rig.model, {
      scripts: [long],
      checks: [
        { reproduced: false, reason: `Not yet: ${"b".repeat(225_000)}` },
        { reproduced: true, reason: "It prints NaN where 0 is expected." },
      ],
    });
    const run = await rig.resolve();
    expect(run.code, run.stderr).toBe(0);
    const writes = asked(rig.model, "developer-write-reproduction");
    expect(writes).toHaveLength(2);
    expect(writes[1]).toContain("It does not show the issue: Not yet: bbb");
    expect(writes[1]).toContain("more characters)");
    expect(writes[1]!.length).toBeLessThan(20_000);
    const checks = asked(rig.model, "developer-check-reproduction");
    expect(checks).toHaveLength(2);
    for (const check of checks) expect(check.length).toBeLessThan(20_000);
    const developer = asked(rig.model, "developer-locate-lines")[0]!;
    expect(developer).toContain("The Reproducer's script `reproduce-mean.mjs`, run with `node reproduce-mean.mjs aaa");
    expect(developer.length).toBeLessThan(30_000);
  }, 120_000);
});
