import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";
import { refNameProblem } from "../../../src/lib/ref-name.js";
import { ConfigError, parseConfig } from "../../../src/config.js";
import { renderConfigProblems } from "../../../src/github/client/load-config.js";

/** What git itself says of a branch name: the reference the rule is held to. */
function gitTakes(name: string): boolean {
  return spawnSync("git", ["check-ref-format", "--branch", name], { encoding: "utf8" }).status === 0;
}

const NAMES = [
  "magis/issue-1",
  "bots/magis/issue-1",
  "magis.issue-1",
  "magis_/issue-1",
  "magis./issue-1",
  "magis-/issue-1",
  "../issue-1",
  "magis/../issue-1",
  "magis..issue-1",
  "magis//issue-1",
  "/magis/issue-1",
  "-magis/issue-1",
  ".magis/issue-1",
  "magis/.hidden/issue-1",
  "magis.lock/issue-1",
  "bots.lock.d/issue-1",
  "magis@{/issue-1",
  "magis@/issue-1",
  "ma gis/issue-1",
  "ma~gis/issue-1",
  "ma^gis/issue-1",
  "ma:gis/issue-1",
  "ma?gis/issue-1",
  "ma*gis/issue-1",
  "ma[gis/issue-1",
  "ma\\gis/issue-1",
  "ma\tgis/issue-1",
  "ma\x7fgis/issue-1",
  "magis/issue-1.",
  "magis/issue-1/",
];

it("refuses exactly the branch names `git check-ref-format --branch` refuses", () => {
  for (const name of NAMES) expect(refNameProblem(name) === null, `${JSON.stringify(name)}: ${refNameProblem(name)}`).toBe(gitTakes(name));
});

it("refuses a branch_prefix whose branches git would refuse, in the config's usual listing", () => {
  for (const prefix of ["..", "magis//", "magis/../", "/magis/", ".magis/", "magis.lock/", "-magis/"]) {
    let problems = "";
    try {
      parseConfig({ branch_prefix: prefix });
    } catch (error) {
      problems = renderConfigProblems(error as ConfigError);
    }
    expect(problems, prefix).toMatch(/branch_prefix.*git refuses branch names made from it/);
  }
  for (const prefix of ["magis/", "bots/magis-", "magis.", "team_a/magis/"]) expect(parseConfig({ branch_prefix: prefix }).branch_prefix).toBe(prefix);
});
