import { describe, expect, it } from "vitest";
import { addBranchTrailer, carriesBranchTrailer } from "../../../../src/github/branches/branch-trailer.js";

describe("the MAGIS-Branch trailer", () => {
  it.each([
    [
      "a message with a body",
      "Fix it (#5)\n\nChanged by MAGIS: a.ts.\n\nFixes #5",
      "Fix it (#5)\n\nChanged by MAGIS: a.ts.\n\nFixes #5\n\nMAGIS-Branch: magis/issue-5",
    ],
    ["a subject alone", "Fix: the greeting", "Fix: the greeting\n\nMAGIS-Branch: magis/issue-5"],
    [
      "a closing block of trailers, which it joins",
      "Fix CI of #2\n\nCI failed.\n\nMAGIS-CI-Fix: 1\n",
      "Fix CI of #2\n\nCI failed.\n\nMAGIS-CI-Fix: 1\nMAGIS-Branch: magis/issue-5",
    ],
    ["a message that has it already", "Fix\n\nMAGIS-Branch: magis/issue-5", "Fix\n\nMAGIS-Branch: magis/issue-5"],
  ])("is added to %s", (_name, message, expected) => {
    expect(addBranchTrailer(message, "magis/issue-5")).toBe(expected);
    expect(carriesBranchTrailer(expected, "magis/issue-5")).toBe(true);
  });

  it("counts only in the closing trailers, and only for the branch it names", () => {
    expect(carriesBranchTrailer("Fix\n\nMAGIS-Branch: magis/issue-5", "magis/issue-5-2")).toBe(false);
    expect(carriesBranchTrailer("Fix\n\nMAGIS-Branch: magis/issue-5\n\nA paragraph after it.", "magis/issue-5")).toBe(false);
    expect(carriesBranchTrailer("Fix\n\nSaid MAGIS-Branch: magis/issue-5 once", "magis/issue-5")).toBe(false);
  });
});
