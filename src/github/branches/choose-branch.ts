import { carriesBranchTrailer } from "./branch-trailer.js";
import { readBranchHead } from "./read-branch-head.js";
import type { BotIdentity, Octokit } from "../types.js";

/** A branch the bot may commit to for an issue, and whether it exists already (then it holds only the bot's commits). */
export interface BranchChoice {
  branch: string;
  /**
   * The commit an existing branch was at when its commits were checked (the lease of the forced update that replaces
   * it), or null for a branch that does not exist yet.
   */
  head: string | null;
}

/** The branch names the bot uses for an issue, in order: `<prefix>issue-N`, then `…issue-N-2`, `…issue-N-3`, … */
export function branchNames(prefix: string, issueNumber: number, count = 10): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}issue-${issueNumber}${i === 0 ? "" : `-${i + 1}`}`);
}

/**
 * The issue a bot branch belongs to (`<prefix>issue-N`, or `…issue-N-2` for a second branch), or null. A revision
 * takes the key of that issue, so it never runs beside a `/magis retry` that rewrites the same branch.
 */
export function issueOfBranch(prefix: string, branch: string): number | null {
  if (!branch.startsWith(prefix)) return null;
  const match = /^issue-(\d+)(?:-\d+)?$/.exec(branch.slice(prefix.length));
  return match ? Number(match[1]) : null;
}

/** What picking a branch for an issue depends on, besides the repository. */
export interface BranchWanted {
  /** The branch a reused bot branch's commits are counted from. */
  defaultBranch: string;
  /** Config `branch_prefix`. */
  prefix: string;
  issueNumber: number;
  /** Whose commits alone a reused branch may hold. */
  bot: BotIdentity;
}

/** A commit as the compare API lists it: who GitHub says wrote and committed it, its message and its signature. */
type ListedCommit = Awaited<ReturnType<Octokit["rest"]["repos"]["compareCommitsWithBasehead"]>>["data"]["commits"][number];

/**
 * Whether a commit is one the bot made for `branch`: the app is its author, the app or GitHub itself (`web-flow`, as
 * github.com records the committer of a commit it signs) its committer, and GitHub verified its signature or its
 * message carries the bot's `MAGIS-Branch` trailer for this branch (a server that signs nothing). A person's commit,
 * or one merely claiming the bot's address, has neither.
 */
export function isOwnCommit(commit: ListedCommit, bot: BotIdentity, branch: string): boolean {
  if (commit.author?.login !== bot.login) return false;
  if (commit.committer?.login !== bot.login && commit.committer?.login !== "web-flow") return false;
  return commit.commit.verification?.verified === true || carriesBranchTrailer(commit.commit.message, branch);
}

/**
 * Picks the first of the issue's branch names that is free, or that exists with only the bot's commits since
 * the default branch (isOwnCommit; so replacing it loses no one's work). A branch a human pushed to is skipped,
 * never overwritten.
 */
export async function chooseBranch(octokit: Octokit, repo: { owner: string; repo: string }, wanted: BranchWanted): Promise<BranchChoice> {
  const { defaultBranch, prefix, issueNumber, bot } = wanted;
  for (const branch of branchNames(prefix, issueNumber)) {
    const head = await readBranchHead(octokit, repo, branch);
    if (head === null) return { branch, head };
    // Compared at the commit just read, so the lease below covers exactly the commits checked here.
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({ ...repo, basehead: `${defaultBranch}...${head}`, per_page: 100 });
    const onlyBot = data.total_commits === data.commits.length && data.commits.every((c) => isOwnCommit(c, bot, branch));
    if (onlyBot) return { branch, head };
  }
  throw new Error(`every branch name from ${prefix}issue-${issueNumber} to …-10 has commits by someone else; delete a few of them and retry`);
}
