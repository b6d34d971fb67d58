import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { BudgetExceededError, LlmError } from "../../../src/llm/errors.js";
import { inStage, StageError } from "../../../src/pipeline/errors.js";
import type { TaskOutcome } from "../../../src/pipeline/types.js";
import { explainFailure } from "../../../src/jobs/explain-failure.js";
import { readStatusMarker } from "../../../src/github/status/status-comment.js";
import { renderStatus } from "../../../src/jobs/kinds/resolve/render-status.js";
import { failureLines } from "../../../src/jobs/render-step-list.js";
import { startStatus, trackProgress } from "../../../src/jobs/track-status.js";
import { sampleResult } from "../pipeline/sample-result.js";

const developer = { name: "Dana", path: "README.md", role: "docs fixer" };

describe("status comment", () => {
  it("starts unchecked, with a marker that finds it again", () => {
    const text = renderStatus(startStatus(12, "@octocat added the label `magis`"));
    expect(readStatusMarker(text)).toBe(12);
    expect(text).toContain("👀 MAGIS is working on this");
    expect(text).toContain("- [ ] Locate the relevant files");
    expect(text).toContain("@octocat added the label `magis`");
  });

  it("checks off stages as progress events arrive and shows each attempt and verdict", () => {
    let state = startStatus(3, "t");
    state = trackProgress(state, {
      stage: "located",
      files: [
        { path: "README.md", score: 2, kept: true },
        { path: "src/a.ts", score: 1, kept: false },
      ],
    });
    state = trackProgress(state, { stage: "tasks", tasks: [{ path: "README.md", description: "fix typo" }] });
    state = trackProgress(state, { stage: "team", developers: [developer] });
    state = trackProgress(state, {
      stage: "kickoff",
      transcript: [
        { speaker: "Manager", text: "hi" },
        { speaker: "Dana", text: "ok" },
      ],
    });
    state = trackProgress(state, { stage: "attempt", path: "README.md", attempt: { number: 1, diff: "d", review: { approved: false, comment: "no" } } });
    let text = renderStatus(state);
    expect(text).toContain("- [x] Located 1 file (of 2 candidates): `README.md`");
    expect(text).toContain("- [x] Team formed: 1 developer (Dana)");
    expect(text).toContain("- [x] Kick-off meeting held (2 speeches)");
    expect(text).toContain("- [ ] Developers and QA Engineers at work");
    expect(text).toContain("`README.md` (Dana): attempt 1 ↩️ revise");

    const outcome: TaskOutcome = {
      path: "README.md",
      developer,
      qaRole: "qa",
      approved: true,
      kept: true,
      diff: "d",
      before: "a",
      after: "b",
      encoding: "utf-8",
      attempts: [
        { number: 1, diff: "d", review: { approved: false, comment: "no" } },
        { number: 2, diff: "d", review: { approved: true, comment: "ok" } },
      ],
    };
    state = trackProgress(state, { stage: "task-done", outcome });
    state = { ...state, pullRequest: { url: "https://github.com/o/r/pull/9", number: 9, updated: false } };
    text = renderStatus(state);
    expect(text).toContain("attempt 1 ↩️ revise, attempt 2 ✅ — **approved**");
    expect(text).toContain("- [x] Developers and QA Engineers at work");
    expect(text).toContain("- [x] Pull request opened: #9 (https://github.com/o/r/pull/9)");
    expect(text).toContain("🚀");
  });

  it("says the run is not a complete fix when protected files need a human", () => {
    const result = { ...sampleResult(), setAside: [{ path: ".github/workflows/ci.yml", kind: "needs-human" as const, description: "Use Node 22." }] };
    let state = trackProgress(startStatus(5, "t"), { stage: "done", result });
    state = { ...state, pullRequest: { url: "https://github.com/o/r/pull/9", number: 9, updated: false } };
    expect(renderStatus(state)).toContain(
      "**Not a complete fix:** protected files need a human: `.github/workflows/ci.yml` (what must change there is in the pull request).",
    );
    expect(renderStatus(trackProgress(startStatus(5, "t"), { stage: "done", result: sampleResult() }))).not.toContain("Not a complete fix");
  });

  it("names the stage, the reason and the next step of a failure", () => {
    const failure = explainFailure(new StageError("locate", "No file looked relevant.", "Name the file in a hint."), "clone", { secrets: [] });
    const text = renderStatus({ ...startStatus(4, "t"), failure });
    expect(text).toContain("😕");
    expect(text).toContain("**Failed at:** locate");
    expect(text).toContain("**Why:** No file looked relevant.");
    expect(text).toContain("**Next step:** Name the file in a hint.");
  });
});

describe("the plan's wait in the status comment", () => {
  const waiting = (sessionUrl?: string) =>
    renderStatus({
      ...startStatus(5, "t"),
      ...(sessionUrl && { sessionUrl }),
      planWait: { until: Date.UTC(2026, 0, 2, 3, 4), minutes: 30, summary: "1. fix it" },
    });

  it("points to the session page's Go button when the pages are on", () => {
    expect(waiting("https://magis.example.com/jobs/5")).toContain("or use the Go button on the session page");
  });

  it("says nothing of a Go button when the pages are off", () => {
    const text = waiting();
    expect(text).toContain("comment `/magis go`");
    expect(text).not.toContain("Go button");
    expect(text).not.toContain("session page");
  });
});

describe("explainFailure", () => {
  const site = { agent: "developer" as const, prompt: "developer-write-code", model: "m" };

  it("sends a budget overrun, even wrapped in a stage error, to token_budget", () => {
    const budget = new BudgetExceededError(site, {
      spent: 1000,
      held: 0,
      budget: 1200,
      estimate: 500,
      promptTokens: 300,
      answerTokens: 200,
      largest: { name: "issue", chars: 1100 },
    });
    const wrapped = Object.assign(new StageError("code", budget.message, "generic"), { cause: budget });
    for (const error of [budget, wrapped]) {
      const note = explainFailure(error, "code", { secrets: [] });
      expect(note.stage).toBe("code");
      expect(note.nextStep).toContain("token_budget");
      expect(note.reason).toContain("the request for developer-write-code would take about 500 tokens");
      expect(note.reason).toContain("whose largest part is `issue` with 1,100 characters");
    }
  });

  it("passes on the model client's advice for other model failures", () => {
    const note = explainFailure(new LlmError(site, "timeout", "no answer within 10 ms", "Raise MAGIS_LLM_TIMEOUT_MS."), "plan", { secrets: [] });
    expect(note).toMatchObject({ stage: "plan" });
    expect(note.reason).toContain("no answer within 10 ms");
    expect(note.nextStep).toContain("MAGIS_LLM_TIMEOUT_MS");
    expect(note.nextStep).toContain("/magis retry");
  });

  it("gives the advice of a model failure that a stage wrapped", async () => {
    const llm = new LlmError(site, "http", "the server answered 500 after 1 try", "Check the server's logs.");
    const wrapped = await inStage("locate", "Fix what the message names, then run again.", () => Promise.reject(llm)).catch((e: unknown) => e);
    expect(wrapped).toBeInstanceOf(StageError);
    const note = explainFailure(wrapped, "clone", { secrets: [] });
    expect(note.stage).toBe("locate");
    expect(note.reason).toContain("prompt `developer-write-code`");
    expect(note.nextStep).toBe("Check the server's logs. Then comment `/magis retry`.");
    expect(explainFailure(new StageError("plan", "unrelated", "x"), "plan", { secrets: [] }).nextStep).toBe("x");
  });

  it("maps config errors and unknown errors, removing secrets", () => {
    expect(explainFailure(parseConfigError(), "config", { secrets: [] }).stage).toBe("config");
    const note = explainFailure(new Error("push to https://x-access-token:tok_SECRET_1234@host failed: tok_SECRET_1234"), "publish", {
      secrets: ["tok_SECRET_1234"],
    });
    expect(note.stage).toBe("publish");
    expect(note.reason).not.toContain("tok_SECRET_1234");
    expect(note.nextStep).toContain("/magis retry");
  });
});

function parseConfigError(): unknown {
  try {
    parseConfig({ top_k: "many" });
  } catch (error) {
    return error;
  }
  throw new Error("expected a ConfigError");
}

describe("failureLines", () => {
  it("quotes the reason and next step without paging anyone they name", () => {
    expect(
      failureLines({ stage: "publish", reason: "The change touches `.github/CODEOWNERS` (owned by @octo-org/admins).", nextStep: "Ask @octocat." }),
    ).toEqual([
      "**Failed at:** publish",
      "**Why:** The change touches `.github/CODEOWNERS` (owned by @&#8203;octo-org/admins).",
      "**Next step:** Ask @&#8203;octocat.",
    ]);
  });
});

describe("a failure note on a public issue", () => {
  it("names the machine's work folder, never its path", () => {
    const error = new Error("ENOTDIR: not a directory, lstat '/srv/magis/work/magis-c0ffee/checkout/README.md/'");
    const note = explainFailure(error, "code", { secrets: [], hostPaths: ["/srv/magis/work"] });
    expect(note.reason).toBe("ENOTDIR: not a directory, lstat '<work folder>/magis-c0ffee/checkout/README.md/'");
  });
});
