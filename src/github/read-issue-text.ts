import type { IssueText } from "../pipeline/types.js";
import { cleanText } from "./clean-text.js";
import type { IssueRef, Octokit } from "./types.js";

const MAX_HINTS = 20;
const MAX_HINT_CHARS = 4000;

// GitHub's author_association of people who may change the repository: their comments are the maintainers' own.
const TRUSTED_ASSOCIATIONS = new Set(["OWNER", "MEMBER", "COLLABORATOR"]);

/** Whose comments become hints (config `hint_authors`). */
export type HintAuthors = "trusted" | "everyone";

/**
 * The issue as the agents read it: title, body and the people's comments as hints, all cleaned; the guidance first.
 * With `trusted` hint authors, only comments by the issue's author and by the repository's owners, members and
 * collaborators count: anyone can comment on a public issue, and a comment is text the agents act on.
 */
export async function readIssueText(octokit: Octokit, ref: IssueRef, guidance: string, hintAuthors: HintAuthors = "trusted"): Promise<IssueText> {
  const { data } = await octokit.rest.issues.get({ owner: ref.owner, repo: ref.repo, issue_number: ref.number });
  const comments = await octokit.paginate(octokit.rest.issues.listComments, { owner: ref.owner, repo: ref.repo, issue_number: ref.number, per_page: 100 });
  const author = data.user?.login;
  const trusted = (c: (typeof comments)[number]) =>
    hintAuthors === "everyone" || TRUSTED_ASSOCIATIONS.has(c.author_association) || (author !== undefined && c.user?.login === author);
  const hints = comments
    .filter((c) => c.user?.type !== "Bot" && !(c.body ?? "").trimStart().startsWith("/magis") && trusted(c))
    .map((c) => cleanText(c.body ?? "").slice(0, MAX_HINT_CHARS))
    .filter((text) => text !== "")
    .slice(-MAX_HINTS);
  return {
    title: cleanText(data.title),
    body: cleanText(data.body ?? ""),
    hints: guidance ? [`Guidance from the maintainer: ${guidance}`, ...hints] : hints,
  };
}
