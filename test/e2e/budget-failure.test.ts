import { describe, expect, it } from "vitest";
import { INSTALLATION, TOKEN, useRig } from "./e2e-rig.js";
import { labeledPayload } from "./payloads.js";

const rig = useRig();

describe("a run stopped by the token budget, end to end", () => {
  it("says in the status comment which call was refused, what it would have taken and what the job had left", async () => {
    // 1,000 tokens cannot hold one call with its answer cap: the Custodian's first summary is refused.
    await rig.setUp({ config: "token_budget: 1000\n" });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-budget");
    await rig.app.services.settled();
    expect((await rig.jobs())[0]).toMatchObject({ status: "failed", stage: "locate" });
    const [status] = rig.github.comments;
    expect(status!.body).toContain("**Failed at:** locate");
    expect(status!.body).toMatch(
      /\*\*Why:\*\* The custodian ran out of token budget: the request for custodian-summarize-file would take about [\d,]+ tokens \(a prompt of about [\d,]+ tokens, whose largest part is `content` with \d+ characters; an answer of up to [\d,]+\), and the job has 1,000 left of its token budget of 1,000 \(0 spent\)/,
    );
    expect(status!.body).toMatch(/\*\*Next step:\*\* Raise `token_budget`/);
    expect(rig.model.requests).toEqual([]);
    expect(await rig.everythingWritten()).not.toContain(TOKEN);
  });
});
