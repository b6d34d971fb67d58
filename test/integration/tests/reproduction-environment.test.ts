import { afterEach, describe, expect, it } from "vitest";
import { startResolveRig, type ResolveRig } from "../resolve/run-resolve.js";
import { asked, MEAN_FILES, MEAN_ISSUE, REPRODUCTION, scriptMean } from "../reproduce/script-mean.js";

let rig: ResolveRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

// The reproduction runs in the declared environment, with no test_command: the setup installs a package its script needs.
const SETUP = [
  "mkdir -p node_modules/expect-zero",
  `echo '{ "name": "expect-zero", "type": "module", "main": "index.js" }' > node_modules/expect-zero/package.json`,
  "echo 'export default (value) => value === 0;' > node_modules/expect-zero/index.js",
].join("\n");
const NEEDS_PACKAGE = {
  ...REPRODUCTION,
  content: [
    'import isZero from "expect-zero";',
    'import { mean } from "./src/stats.js";',
    "const got = mean([]);",
    "if (!isZero(got)) {",
    "  console.error(`mean([]) gave ${got}, expected 0`);",
    "  process.exit(1);",
    "}",
    "",
  ].join("\n"),
};

describe("the reproduction's environment", () => {
  it("is the declared one, set up for the reproduction alone when no test_command is set", async () => {
    rig = await startResolveRig({
      issue: MEAN_ISSUE,
      files: { ...MEAN_FILES, "scripts/setup.sh": `${SETUP}\n`, ".github/magis.yml": "environment:\n  setup:\n    - sh scripts/setup.sh\n" },
    });
    scriptMean(rig.model, { scripts: [NEEDS_PACKAGE] });
    const run = await rig.resolve();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("Way: dynamic: reproduced by `node reproduce-mean.mjs`, which failed (exit 1) on the untouched code");
    expect(asked(rig.model, "developer-check-reproduction")[0]).toContain("mean([]) gave NaN, expected 0");
    expect(run.stderr).toContain("with the change it passed (exit 0): the issue is gone");
  }, 120_000);
});
