import type { ProbotOctokit } from "probot";

/** The class GitHub clients are made from (see createOctokitClass). */
export type OctokitClass = typeof ProbotOctokit;

/** An authenticated GitHub client (an installation's, inside jobs). */
export type Octokit = InstanceType<typeof ProbotOctokit>;

/** An issue (or pull request) of a repository. */
export interface IssueRef {
  owner: string;
  repo: string;
  number: number;
}

/** Who the app is on GitHub: the author of its pull requests and (GitHub records it, as the commits carry none) of its commits. */
export interface BotIdentity {
  /** `<app-slug>[bot]`, or `github-actions[bot]` for a workflow's token. */
  login: string;
}
