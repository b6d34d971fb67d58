import { describe, expect, it } from "vitest";
import { countCandidates } from "../../../src/eval/count-candidates.js";
import type { Attempt, CandidateReport, ResolveResult } from "../../../src/pipeline/types.js";

const group = (members: number[]) => ({ members, diff: "", normalized: "" });
const withAttempts = (attempts: Attempt[]) => ({ outcomes: [{ attempts }] }) as unknown as ResolveResult;

describe("countCandidates: what eval records of an instance's candidates", () => {
  it("sums candidates and groups over attempts, and ranks each chosen group by votes (ties share a rank)", () => {
    const first: CandidateReport = {
      sampled: 5,
      dropped: [{ number: 5, reason: "does not apply" }],
      groups: [group([1, 2]), group([3]), group([4])],
      chosen: 2,
      why: "",
    };
    const second: CandidateReport = { sampled: 5, dropped: [], groups: [group([1, 2, 3]), group([4, 5])], chosen: 0, why: "" };
    const none: CandidateReport = { sampled: 5, dropped: [1, 2, 3, 4, 5].map((number) => ({ number, reason: "syntax" })), groups: [], why: "" };
    const result = withAttempts([
      { number: 1, candidates: first },
      { number: 2, candidates: none },
      { number: 3, candidates: second },
    ]);
    expect(countCandidates(result)).toEqual({ candidates: { sampled: 15, groups: 5, chosen_ranks: [2, 1] } });
  });

  it("records nothing for a run with one candidate per attempt", () => {
    expect(countCandidates(withAttempts([{ number: 1, diff: "x" }]))).toEqual({});
  });
});
