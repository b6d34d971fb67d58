import { describe, expect, it } from "vitest";
import { INSTALLATION, TOKEN, useRig } from "./e2e-rig.js";
import { labeledPayload } from "./payloads.js";

const rig = useRig();

async function runLabeled(delivery: string): Promise<string> {
  await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), delivery);
  await rig.app.services.settled();
  const [status] = rig.github.comments;
  return status!.body;
}

describe("a run kept under its dollar budget, end to end", () => {
  it("stops at the call that could pass cost_budget_usd, and says what it would have cost and what was left", async () => {
    // At $100 per million tokens a call's worst case (its prompt and a 4,096-token answer) is about $0.45: the first
    // calls fit in $0.50, and the job stops once what they spent leaves too little for the next.
    await rig.setUp({ config: "cost_budget_usd: 0.5\n", env: { MAGIS_MODEL_PRICES: "gpt-4o-mini=100/100" } });
    const body = await runLabeled("d-cost");
    expect((await rig.jobs())[0]).toMatchObject({ status: "failed" });
    expect(rig.model.requests.length).toBeGreaterThan(0);
    expect(body).toMatch(
      /\*\*Why:\*\* The \w+ ran out of cost budget: this job would spend more than its \$0\.50 budget: the request for [\w-]+ could cost up to \$0\.\d\d \(a prompt of about [\d,]+ tokens and an answer of up to 4,096, at gpt-4o-mini's \$100\/\$100 per million tokens\), and \$0\.\d+ is left \(\$0\.\d+ spent\), so it was not made\./,
    );
    expect(body).toContain("**Next step:** Raise cost_budget_usd in .github/magis.yml. Then comment `/magis retry`.");
    expect(await rig.everythingWritten()).not.toContain(TOKEN);
  });

  it("prices the pull request's usage table with MAGIS_MODEL_PRICES, per agent and in all, within a budget it keeps", async () => {
    await rig.setUp({ config: "cost_budget_usd: 5\n", env: { MAGIS_MODEL_PRICES: "gpt-4o-mini=2.50/10.00" } });
    await runLabeled("d-cost-priced");
    expect((await rig.jobs())[0]).toMatchObject({ status: "succeeded" });
    const [pull] = rig.github.pulls;
    const report = pull!.body;
    expect(report).toContain("| Agent | Model | Calls | Prompt tokens | Completion tokens | Total tokens | Cost |");
    expect(report).toMatch(/\| custodian \| `gpt-4o-mini` \| \d+ \| \d+ \| \d+ \| \d+ \| \$0\.\d{2,4} \|/);
    expect(report).toMatch(/\| \*\*total\*\* \| {2}\| \d+ \| {2}\| {2}\| \d+ \| \*\*\$0\.\d+\*\* \|/);
  });

  it("holds the operator's MAGIS_MAX_COST_USD over a higher cost_budget_usd, and says whose bound it is", async () => {
    await rig.setUp({ config: "cost_budget_usd: 100\n", env: { MAGIS_MODEL_PRICES: "gpt-4o-mini=100/100", MAGIS_MAX_COST_USD: "0.01" } });
    const body = await runLabeled("d-cost-bound");
    expect(body).toMatch(/this job would spend more than its \$0\.01 budget: the request for custodian-summarize-file could cost up to \$0\.\d\d/);
    expect(body).toContain("**Next step:** The budget is the operator's MAGIS_MAX_COST_USD: raise it where the app runs");
    expect(rig.model.requests).toEqual([]);
  });

  it("refuses to start a job under a dollar budget whose model has no price, naming the model and where to set one", async () => {
    await rig.setUp({ config: "cost_budget_usd: 2\n", env: { MAGIS_MODEL_PRICES: "gpt-4o=2.50/10.00" } });
    const body = await runLabeled("d-cost-unpriced");
    expect((await rig.jobs())[0]).toMatchObject({ status: "failed" });
    expect(body).toContain(
      "**Why:** This job has a budget of $2.00 (cost_budget_usd in .github/magis.yml), but the custodian's model gpt-4o-mini has no price, so the budget cannot be kept; no model was called.",
    );
    expect(body).toContain(
      "**Next step:** Add gpt-4o-mini=PROMPT/COMPLETION (US dollars per million tokens) to MAGIS_MODEL_PRICES where the app runs, or choose a priced model for the custodian, or remove cost_budget_usd from .github/magis.yml.",
    );
    expect(rig.model.requests).toEqual([]);
  });
});
