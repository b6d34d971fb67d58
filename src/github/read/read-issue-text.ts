import type { MagisConfig } from "../../config.js";
import type { IssueText } from "../../pipeline/types.js";
import { hasPermission } from "./check-permission.js";
import { cleanText } from "../../lib/clean-text.js";
import type { IssueRef, Octokit } from "../types.js";

const MAX_HINTS = 20;
const MAX_HINT_CHARS = 4000;

// GitHub's author_association of people who may change the repository: their comments are the maintainers' own.
const TRUSTED_ASSOCIATIONS = new Set(["OWNER", "MEMBER", "COLLABORATOR"]);
// The newest comments looked at; older ones rarely add to the hints kept.
const MAX_COMMENTS_READ = 50;

/** Whose comments become hints: config `hint_authors`, and the permissions that make a commenter trusted. */
export interface HintPolicy {
  authors: MagisConfig["hint_authors"];
  /** Config `allowed_permissions`: a commenter holding one is trusted even when GitHub's association says otherwise. */
  allowed: readonly string[];
  /** The moment of the trigger (ISO 8601): comments written or edited after it are not read. */
  until?: string;
}

/** The issue as the trigger's webhook carried it; the run works from this, not from what the issue says later. */
export interface IssueSnapshot {
  title: string;
  body: string;
  /** The issue's author (whose comments count as hints). */
  author: string;
  /** When the trigger happened (ISO 8601). */
  at: string;
}

/** How readIssueText reads an issue: the maintainer's guidance, whose comments count, and the webhook's copy of it. */
export interface IssueReading {
  /** The maintainer's guidance (`/magis retry <guidance>`), put first among the hints; empty for none. */
  guidance: string;
  /** Whose comments become hints. */
  hints: HintPolicy;
  /** The issue as the trigger's webhook carried it; without it the issue is read now. */
  snapshot?: IssueSnapshot;
}

/**
 * The issue as the agents read it: title, body and the people's comments as hints, all cleaned; the guidance first.
 * With `trusted` hint authors, only comments by the issue's author and by people who may change the repository count:
 * anyone can comment on a public issue, and a comment is text the agents act on. GitHub's author_association says
 * OWNER, MEMBER or COLLABORATOR for most of them; for anyone else (an organization member whose membership is private
 * shows as CONTRIBUTOR) the repository permission is asked, once per person.
 */
export async function readIssueText(octokit: Octokit, ref: IssueRef, reading: IssueReading): Promise<IssueText> {
  const { guidance, hints: policy, snapshot } = reading;
  // With a snapshot the webhook already carried the issue; only without one is it read now.
  const issue = snapshot ?? (await readLiveIssue(octokit, ref));
  const until = snapshot?.at ?? policy.until;
  const comments = await octokit.paginate(octokit.rest.issues.listComments, { owner: ref.owner, repo: ref.repo, issue_number: ref.number, per_page: 100 });
  const candidates = comments
    .filter((c) => c.user?.type !== "Bot" && !(c.body ?? "").trimStart().startsWith("/magis"))
    // A comment edited after the trigger is left out whole: its text at the trigger is not to be had.
    .filter((c) => until === undefined || !(later(c.created_at, until) || later(c.updated_at, until)))
    .slice(-MAX_COMMENTS_READ);
  const permitted = new Map<string, Promise<boolean>>();
  const trusted = async (c: (typeof candidates)[number]): Promise<boolean> => {
    const login = c.user?.login;
    if (policy.authors === "everyone" || TRUSTED_ASSOCIATIONS.has(c.author_association)) return true;
    if (!login) return false;
    if (login === issue.author) return true;
    // A failed check leaves the comment out: a hint is worth less than a job.
    if (!permitted.has(login))
      permitted.set(
        login,
        hasPermission(octokit, { owner: ref.owner, repo: ref.repo }, login, policy.allowed).catch(() => false),
      );
    return permitted.get(login)!;
  };
  const kept = await Promise.all(candidates.map(trusted));
  const hints = candidates
    .filter((_, i) => kept[i])
    .map((c) => cleanText(c.body ?? "").slice(0, MAX_HINT_CHARS))
    .filter((text) => text !== "")
    .slice(-MAX_HINTS);
  return {
    title: cleanText(issue.title),
    body: cleanText(issue.body),
    hints: guidance ? [`Guidance from the maintainer: ${guidance}`, ...hints] : hints,
  };
}

async function readLiveIssue(octokit: Octokit, ref: IssueRef): Promise<Omit<IssueSnapshot, "at">> {
  const { data } = await octokit.rest.issues.get({ owner: ref.owner, repo: ref.repo, issue_number: ref.number });
  return { title: data.title, body: data.body ?? "", author: data.user?.login ?? "" };
}

// Timestamps GitHub gives are ISO 8601 in UTC, so they compare as dates; one missing counts as not later.
function later(time: string | undefined, than: string): boolean {
  return time !== undefined && Date.parse(time) > Date.parse(than);
}
