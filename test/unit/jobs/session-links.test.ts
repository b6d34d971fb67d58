import { describe, expect, it } from "vitest";
import { renderStatus } from "../../../src/jobs/kinds/resolve/render-status.js";
import { renderRevisionStatus, startRevisionStatus } from "../../../src/jobs/kinds/revise/render-status.js";
import { startStatus } from "../../../src/jobs/track-status.js";
import { renderReport } from "../../../src/pipeline/report/render-report.js";
import { sampleResult } from "../pipeline/sample-result.js";

const URL = "https://magis.example.com/jobs/12";

describe("the Session link", () => {
  it("is in the status comment's small print when the page is on, and nowhere when it is off", () => {
    const on = renderStatus({ ...startStatus(12, "@octocat added the label `magis`"), sessionUrl: URL });
    expect(on).toContain(`<sub>Run #12 · @octocat added the label \`magis\` · [Session](${URL})</sub>`);
    const off = renderStatus(startStatus(12, "@octocat added the label `magis`"));
    expect(off).not.toMatch(/session/i);
  });

  it("is in a revision's status while it runs and in its summary once done", () => {
    const running = renderRevisionStatus({ ...startRevisionStatus(12, "t"), sessionUrl: URL });
    expect(running).toContain(`[Session](${URL})`);
    const done = renderRevisionStatus({
      ...startRevisionStatus(12, "t"),
      sessionUrl: URL,
      done: { commit: null, parent: "abc1234", branch: "magis/issue-1", result: null, note: "nothing to change" },
    });
    expect(done).toContain(`<sub>Run #12 · t · [Session](${URL})</sub>`);
    expect(renderRevisionStatus(startRevisionStatus(12, "t"))).not.toMatch(/session/i);
  });

  it("is under the pull request description's summary when the page is on, and absent when it is off", () => {
    const on = renderReport(sampleResult(), { title: "sum is wrong", issueNumber: 7, sessionUrl: URL });
    expect(on).toContain(`[Session](${URL}): what each agent did in this run`);
    expect(on.indexOf("[Session]")).toBeLessThan(on.indexOf("Usage"));
    const off = renderReport(sampleResult(), { title: "sum is wrong", issueNumber: 7 });
    expect(off).not.toContain("[Session]");
  });
});
