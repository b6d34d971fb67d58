import type { ProbotOctokit } from "probot";

/** An authenticated GitHub client (an installation's, inside jobs). */
export type Octokit = InstanceType<typeof ProbotOctokit>;

/** An issue (or pull request) of a repository. */
export interface IssueRef {
  owner: string;
  repo: string;
  number: number;
}

/** Who the app is on GitHub: its bot login and the commit identity of its commits. */
export interface BotIdentity {
  /** `<app-slug>[bot]`. */
  login: string;
  /** Commit author name (the login) and the bot's noreply address, so GitHub shows the app as author. */
  name: string;
  email: string;
}
