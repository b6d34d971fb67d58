import fs from "node:fs";
import { applyPatch, parsePatch } from "diff";
import { resolveInside } from "../../lib/safe-path.js";
import { writeScriptAnswer } from "../../llm/write-script-answer.js";

/** What the oracle reproduces an issue from: SWE-bench's test patch, its FAIL_TO_PASS tests, and the untouched checkout. */
export interface OracleReproduction {
  testPatch: string;
  failToPass: string[];
  /** The instance's untouched checkout, whose test files the test patch changes. */
  checkout: string;
}

/**
 * What a perfect Reproducer answers, from the instance's tests: the Manager takes the dynamic way when the instance has
 * a test patch with FAIL_TO_PASS tests; the script is the test file those tests are in, as the test patch leaves it, run
 * with pytest on exactly those tests; a run shows the issue when pytest reports tests that failed (an error while
 * collecting or in a fixture does not). Null for a prompt it does not answer.
 */
export function answerAsReproducer(prompt: string, vars: Record<string, string>, reproduction: OracleReproduction | undefined): unknown {
  switch (prompt) {
    case "manager-choose-way":
      return reproduction
        ? { reason: "The instance's FAIL_TO_PASS tests fail on the untouched code.", way: "dynamic", reproducer: REPRODUCER }
        : { reason: "The instance has no test patch with FAIL_TO_PASS tests to reproduce the issue from.", way: "static", reproducer: REPRODUCER };
    case "developer-write-reproduction":
      if (!reproduction) throw new Error("the instance has no test patch, so the oracle cannot write a reproduction");
      return writeScript(reproduction);
    case "developer-check-reproduction":
      return checkOutput(vars.output ?? "");
    default:
      return null;
  }
}

const REPRODUCER = { name: "Oracle Reproducer", role: "You reproduce the issue with the instance's own FAIL_TO_PASS tests." };

function writeScript(reproduction: OracleReproduction): string {
  const files = parsePatch(reproduction.testPatch);
  // The file of the first FAIL_TO_PASS test (pytest ids are `path::name`), else the first file the test patch changes.
  const named = reproduction.failToPass.find((id) => id.includes("::"))?.split("::")[0];
  const file = files.find((f) => stripPrefix(f.newFileName) === named) ?? files[0];
  if (!file) throw new Error("the instance's test patch changes no file");
  const path = stripPrefix(file.newFileName);
  const { absolute } = resolveInside(reproduction.checkout, path);
  const base = fs.existsSync(absolute) ? fs.readFileSync(absolute, "utf8") : "";
  const content = applyPatch(base, file);
  if (content === false) throw new Error(`the instance's test patch does not apply to ${path}`);
  const ids = reproduction.failToPass.filter((id) => id.startsWith(`${path}::`));
  const targets = ids.length > 0 ? ids : [path];
  const script = {
    expected: `the FAIL_TO_PASS tests fail: ${reproduction.failToPass.slice(0, 5).join(", ")}`,
    path,
    command: `python3 -m pytest -q -p no:cacheprovider ${targets.map(quote).join(" ")}`,
    content,
  };
  return writeScriptAnswer(script, "The instance's FAIL_TO_PASS tests, from the file the test patch leaves.");
}

// A host name that could not be looked up: the sandbox gives tests and reproductions no network, so a test that reaches
// a server (requests' tests call httpbin.org) fails there with or without the fix.
const NO_NETWORK = /Temporary failure in name resolution|Name or service not known|\bgaierror\b|\bNameResolutionError\b|\bFailed to resolve\b/;

/**
 * Whether pytest's output reports failed tests: the issue shown, rather than an environment that cannot run them. Tests
 * that failed looking a host up are not the issue shown, as the Reproducer's prompt says of a failure for another
 * reason: the fix could never make them pass in the sandbox, and a reproduction that cannot pass refuses the gold patch.
 */
function checkOutput(output: string): { reason: string; reproduced: boolean } {
  const offline = NO_NETWORK.exec(output);
  if (offline)
    return {
      reason: `the tests fail for want of a network (${offline[0]}), which the sandbox never gives: they cannot pass here, fixed or not.`,
      reproduced: false,
    };
  if (/^FAILED |\b\d+ failed\b/m.test(output)) return { reason: "The gold FAIL_TO_PASS tests fail on the untouched code.", reproduced: true };
  return { reason: "pytest reports no failed test: the tests did not run to their assertions here.", reproduced: false };
}

function stripPrefix(name: string | undefined): string {
  return (name ?? "").replace(/^[ab]\//, "");
}

function quote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}
