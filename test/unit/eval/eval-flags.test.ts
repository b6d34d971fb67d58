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
async function evalWith(flags: string[], env: Record<string, string> = {}): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const io: CliIo = { stdout: () => {}, stderr: (t) => err.push(t), env: { OPENAI_API_KEY: "sk-test-not-used", ...env }, cwd: dir };
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

  it("reads --prices as MAGIS_MODEL_PRICES is written, refusing a bad entry, a model twice, and --price-in beside it", async () => {
    const bad = await evalWith(["--prices", "gpt-4o-mini=0.15"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("--prices holds 'gpt-4o-mini=0.15', which is not a price: write MODEL=PROMPT/COMPLETION entries separated by commas");
    expect((await evalWith(["--prices", "a=1/1,a=2/2"])).err).toContain("--prices prices a twice");
    const both = await evalWith(["--prices", "a=1/1", "--price-in", "1", "--price-out", "2"]);
    expect(both.code).toBe(2);
    expect(both.err).toContain("give --prices or --price-in/--price-out, not both: --price-in/--price-out is --prices gpt-4o-mini=IN/OUT");
    expect(fs.existsSync(path.join(dir, "out"))).toBe(false);
  });

  it("refuses a dollar budget over a model without a price before any instance, and takes --prices or --price-in as its price", async () => {
    const budget = { MAGIS_MAX_COST_USD: "1" };
    const unpriced = await evalWith(["--prices", "gpt-4o=2.5/10"], budget);
    expect(unpriced.code).toBe(2);
    expect(unpriced.err).toContain("This job has a budget of $1.00 (the operator's MAGIS_MAX_COST_USD), but the custodian's model gpt-4o-mini has no price");
    expect(unpriced.err).toContain("Add gpt-4o-mini=PROMPT/COMPLETION (US dollars per million tokens) to MAGIS_MODEL_PRICES");
    // Priced (by the flags, or over the environment's table), the run gets as far as the next check.
    for (const flags of [
      ["--prices", "gpt-4o-mini=0.15/0.60"],
      ["--price-in", "0.15", "--price-out", "0.60"],
    ]) {
      const { err } = await evalWith([...flags, "--concurrency", "0"], budget);
      expect(err).toContain("--concurrency must be a whole number from 1 to 64, not '0'");
    }
    // A broken table in the environment stops the door as any mistyped setting does, --prices or not.
    await expect(evalWith(["--prices", "gpt-4o-mini=0.15/0.60"], { MAGIS_MODEL_PRICES: "gpt-4o-mini=x" })).rejects.toThrow(
      "MAGIS_MODEL_PRICES holds 'gpt-4o-mini=x', which is not a price",
    );
  });
});

describe("magis eval --noise and --seed", () => {
  it("takes a share from 0 to 1 with --oracle only, and a seed only with --noise, before anything is made", async () => {
    for (const value of ["1.5", "1.01", "0x1", "1e-1", "", "ten", "30%"]) {
      const { code, err } = await evalWith(["--oracle", "--noise", value]);
      expect(code).toBe(2);
      expect(err).toContain(`--noise must be a share of the answers from 0 to 1, such as 0.1, not '${value}'`);
    }
    const alone = await evalWith(["--noise", "0.1"]);
    expect([alone.code, alone.err]).toEqual([2, expect.stringContaining("--noise makes the oracle's answers noisy: it needs --oracle")]);
    const seedAlone = await evalWith(["--oracle", "--seed", "3"]);
    expect([seedAlone.code, seedAlone.err]).toEqual([2, expect.stringContaining("--seed seeds the oracle's noise: give it with --noise P (and --oracle)")]);
    const badSeed = await evalWith(["--oracle", "--noise", "0.3", "--seed", "1.5"]);
    expect([badSeed.code, badSeed.err]).toEqual([2, expect.stringContaining("--seed must be a whole number from 0 to 2147483647, not '1.5'")]);
    expect(fs.existsSync(path.join(dir, "out"))).toBe(false);
  });
});
