import { codeSpan } from "../../lib/markdown.js";
import { readCiFailures } from "./read-ci-failures.js";
import { checkNames, renderCiFeedback } from "./render-ci-failures.js";
import type { Octokit } from "../types.js";

/** What a CI fix shows in its status comment: the failed checks, which attempt this is, and what looked unrelated. */
export interface CiFixStatus {
  /** The failed checks' names, for a sentence. */
  checks: string;
  attempt: number;
  of: number;
  /** Failed checks that look like the CI's own trouble, each with why. */
  unrelated: string[];
}

/**
 * The feedback of a CI fix: the failed checks of the commit CI ran on, for the Manager; or, when there is nothing the
 * code can fix (no failed check is listed any more, or every failure looks like the CI's own trouble), why nothing
 * is done, so no attempt is spent on it.
 */
export async function readCiFeedback(
  octokit: Octokit,
  repo: { owner: string; repo: string },
  ci: { headSha: string; attempt: number; of: number },
  secrets: (string | undefined)[],
): Promise<{ status: CiFixStatus; general: string[]; note?: string }> {
  const failures = await readCiFailures(octokit, repo, ci.headSha, secrets);
  const unrelated = failures.filter((f) => f.unrelated).map((f) => `${codeSpan(f.name)} (${f.unrelated})`);
  const status = { checks: checkNames(failures), attempt: ci.attempt, of: ci.of, unrelated };
  const sha = ci.headSha.slice(0, 7);
  if (failures.length === 0) return { status, general: [], note: `no failed check is listed on ${sha} any more (it may have been re-run); nothing to fix` };
  if (unrelated.length === failures.length) {
    return {
      status,
      general: [],
      note: `every failure on ${sha} looks unrelated to the change (${unrelated.join(", ")}); re-run the failed jobs, no attempt was spent`,
    };
  }
  return { status, general: [renderCiFeedback(failures, { number: ci.attempt, of: ci.of })] };
}
