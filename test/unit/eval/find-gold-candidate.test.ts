import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeDiff } from "../../../src/edit/make-diff.js";
import { normalizedDigest } from "../../../src/edit/normalize-code.js";
import { findGoldCandidate } from "../../../src/eval/find-gold-candidate.js";
import type { CandidateReport, ResolveResult } from "../../../src/pipeline/types.js";

const PRICE = "def price(items):\n    return sum(items)\n";
const GOLD_PRICE = "def price(items):\n    return round(sum(items), 2)\n";
const TAX = "RATE = 0.2\n";
const GOLD_TAX = "RATE = 0.21\n";
const checkout = fs.mkdtempSync(path.join(os.tmpdir(), "magis-gold-candidate-"));
fs.writeFileSync(path.join(checkout, "price.py"), PRICE);
fs.writeFileSync(path.join(checkout, "tax.py"), TAX);
afterAll(() => fs.rmSync(checkout, { recursive: true, force: true }));

const GOLD = makeDiff("price.py", PRICE, GOLD_PRICE) + makeDiff("tax.py", TAX, GOLD_TAX);

/** A run whose tasks sampled candidates leaving each file as one of `afters`, one group per text. */
async function runWith(tasks: Record<string, string[]>): Promise<ResolveResult> {
  const outcomes = await Promise.all(
    Object.entries(tasks).map(async ([file, afters]) => {
      const groups = await Promise.all(afters.map(async (after, i) => ({ members: [i + 1], diff: "", normalized: await normalizedDigest(file, after) })));
      const candidates: CandidateReport = { sampled: afters.length, dropped: [], groups, chosen: 0, why: "" };
      return { path: file, attempts: [{ number: 1, candidates }] };
    }),
  );
  return { outcomes } as unknown as ResolveResult;
}

describe("findGoldCandidate: whether the gold change was among an instance's candidates", () => {
  it("is true when every gold file has a candidate equal to the gold text once comments and formatting are dropped", async () => {
    const reformatted = "def price(items):\n    # to the cent\n    return round( sum(items),2 )\n";
    const run = await runWith({ "price.py": ["def price(items):\n    return sum(items) or 0\n", reformatted], "tax.py": [GOLD_TAX] });
    expect(await findGoldCandidate(run, checkout, GOLD)).toBe(true);
  });

  it("is false when one gold file has no such candidate, or no task sampled candidates for it", async () => {
    const wrongTax = await runWith({ "price.py": [GOLD_PRICE], "tax.py": ["RATE = 0.25\n"] });
    expect(await findGoldCandidate(wrongTax, checkout, GOLD)).toBe(false);
    const noTax = await runWith({ "price.py": [GOLD_PRICE] });
    expect(await findGoldCandidate(noTax, checkout, GOLD)).toBe(false);
  });

  it("is null without candidates, or when git cannot apply the gold patch to the checkout", async () => {
    expect(
      await findGoldCandidate({ outcomes: [{ path: "price.py", attempts: [{ number: 1, diff: "x" }] }] } as unknown as ResolveResult, checkout, GOLD),
    ).toBe(null);
    const elsewhere = makeDiff("price.py", "def cost():\n    return 1\n", "def cost():\n    return 2\n");
    expect(await findGoldCandidate(await runWith({ "price.py": [GOLD_PRICE] }), checkout, elsewhere)).toBe(null);
    // The checkout is never written.
    expect(fs.readFileSync(path.join(checkout, "price.py"), "utf8")).toBe(PRICE);
  });
});
