import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { answerAsReproducer } from "../../../src/eval/oracle/answer-reproducer.js";
import { checkSchema } from "../../../src/pipeline/reproduce/reproduce-issue.js";
import { readScriptAnswer } from "../../../src/llm/read-script-answer.js";
import { waySchema } from "../../../src/pipeline/reproduce/choose-way.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A checkout with one test file, and SWE-bench's test patch that adds a failing test to it. */
function instance() {
  const checkout = fs.mkdtempSync(path.join(os.tmpdir(), "magis-oracle-repro-"));
  dirs.push(checkout);
  fs.mkdirSync(path.join(checkout, "tests"));
  fs.writeFileSync(path.join(checkout, "tests/test_mean.py"), "from stats import mean\n\n\ndef test_one():\n    assert mean([1]) == 1\n");
  const testPatch = [
    "diff --git a/tests/test_mean.py b/tests/test_mean.py",
    "--- a/tests/test_mean.py",
    "+++ b/tests/test_mean.py",
    "@@ -3,3 +3,7 @@ from stats import mean",
    " ",
    " def test_one():",
    "     assert mean([1]) == 1",
    "+",
    "+",
    "+def test_empty():",
    "+    assert mean([]) == 0",
    "",
  ].join("\n");
  return { testPatch, failToPass: ["tests/test_mean.py::test_empty"], checkout };
}

describe("the oracle's Reproducer", () => {
  it("takes the dynamic way with a test patch, and the static way without one", () => {
    expect(waySchema.parse(answerAsReproducer("manager-choose-way", {}, instance())).way).toBe("dynamic");
    expect(waySchema.parse(answerAsReproducer("manager-choose-way", {}, undefined)).way).toBe("static");
    expect(answerAsReproducer("developer-locate-lines", {}, instance())).toBeNull();
  });

  it("writes the test file as the test patch leaves it, run with pytest on the FAIL_TO_PASS tests", () => {
    const read = readScriptAnswer(answerAsReproducer("developer-write-reproduction", {}, instance()) as string);
    if (!read.ok) throw new Error(read.problem);
    const script = read.value;
    expect(script.path).toBe("tests/test_mean.py");
    expect(script.command).toBe("python3 -m pytest -q -p no:cacheprovider 'tests/test_mean.py::test_empty'");
    expect(script.content).toBe("from stats import mean\n\n\ndef test_one():\n    assert mean([1]) == 1\n\n\ndef test_empty():\n    assert mean([]) == 0\n");
  });

  it("says the issue is shown only when pytest reports failed tests, not when they could not run", () => {
    const failed = "FAILED tests/test_mean.py::test_empty - ZeroDivisionError\n1 failed in 0.02s";
    const broken = "ImportError while loading conftest '/workspace/conftest.py'.\nE   ModuleNotFoundError: No module named 'hypothesis'";
    expect(checkSchema.parse(answerAsReproducer("developer-check-reproduction", { output: failed }, instance())).reproduced).toBe(true);
    expect(checkSchema.parse(answerAsReproducer("developer-check-reproduction", { output: broken }, instance())).reproduced).toBe(false);
  });

  it("says the issue is not shown when the failed tests could not look a host up, which no fix makes pass in the sandbox", () => {
    const offline = [
      "E               requests.exceptions.ConnectionError: [Errno -3] Temporary failure in name resolution",
      "FAILED tests/test_requests.py::test_post - requests.exceptions.ConnectionError: [Errno -3] Temporary failure in name resolution",
      "1 failed in 2.14s",
    ].join("\n");
    const answer = checkSchema.parse(answerAsReproducer("developer-check-reproduction", { output: offline }, instance()));
    expect(answer.reproduced).toBe(false);
    expect(answer.reason).toContain("Temporary failure in name resolution");
  });
});
