import type { IssueText } from "../pipeline/types.js";
import { cleanText } from "./clean-text.js";
import type { IssueRef, Octokit } from "./types.js";

const MAX_HINTS = 20;
const MAX_HINT_CHARS = 4000;

/** The issue as the agents read it: title, body and the people's comments as hints, all cleaned; the guidance first. */
export async function readIssueText(octokit: Octokit, ref: IssueRef, guidance: string): Promise<IssueText> {
  const { data } = await octokit.rest.issues.get({ owner: ref.owner, repo: ref.repo, issue_number: ref.number });
  const comments = await octokit.paginate(octokit.rest.issues.listComments, { owner: ref.owner, repo: ref.repo, issue_number: ref.number, per_page: 100 });
  const hints = comments
    .filter((c) => c.user?.type !== "Bot" && !(c.body ?? "").trimStart().startsWith("/magis"))
    .map((c) => cleanText(c.body ?? "").slice(0, MAX_HINT_CHARS))
    .filter((text) => text !== "")
    .slice(-MAX_HINTS);
  return {
    title: cleanText(data.title),
    body: cleanText(data.body ?? ""),
    hints: guidance ? [`Guidance from the maintainer: ${guidance}`, ...hints] : hints,
  };
}
