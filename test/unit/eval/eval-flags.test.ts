import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli.js";
import type { CliIo } from "../../../src/cli/io.js";

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-eval-flags-"));
  fs.writeFileSync(
    path.join(dir, "data.jsonl"),
    `${JSON.stringify({ instance_id: "a__b-1", repo: "a/b", base_commit: "0".repeat(40), problem_statement: "x" })}\n`,
  );
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs `magis eval` with a model configured (never called: the flags are refused first); its exit code and stderr. */
async function evalWith(flags: string[]): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const io: CliIo = { stdout: () => {}, stderr: (t) => err.push(t), env: { OPENAI_API_KEY: "sk-test-not-used" }, cwd: dir };
  const code = await main(["eval", "--data", "data.jsonl", "--repos", "repos", "--out", "out", ...flags], io);
  return { code, err: err.join("") };
}

describe("magis eval's numeric flags", () => {
  it("reads --limit and --concurrency as digits only, and says which flag and value were wrong, before anything is made", async () => {
    for (const [flag, value, range] of [
      ["--concurrency", "0x2", "from 1 to 64"],
      ["--concurrency", "1e1", "from 1 to 64"],
      ["--concurrency", "", "from 1 to 64"],
      ["--limit", "2.0", "from 1 to 1000000"],
      ["--limit", "+1", "from 1 to 1000000"],
    ] as const) {
      const { code, err } = await evalWith([flag, value]);
      expect(code).toBe(2);
      expect(err).toContain(`${flag} must be a whole number ${range}, not '${value}'`);
    }
    expect(fs.existsSync(path.join(dir, "out"))).toBe(false);
  });

  it("reads prices as a price is written, refusing hex, exponents, signs and nothing", async () => {
    for (const value of ["0x10", "1e3", "", "+5", "free"]) {
      const { code, err } = await evalWith(["--price-in", value, "--price-out", "10"]);
      expect(code).toBe(2);
      expect(err).toContain(`--price-in must be a price in US dollars per million tokens, such as 3 or 0.15, not '${value}'`);
    }
    expect(fs.existsSync(path.join(dir, "out"))).toBe(false);
    // Written as prices are: these pass the price check and stop at the next one (--concurrency).
    for (const value of ["3", "0.15", ".15", "5."]) {
      const { err } = await evalWith(["--price-in", value, "--price-out", "10", "--concurrency", "0"]);
      expect(err).toContain("--concurrency must be a whole number from 1 to 64, not '0'");
    }
  });
});
