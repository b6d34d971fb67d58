import type { Octokit } from "../../src/github/types.js";
import { triggerContext } from "../../src/triggers/trigger-context.js";

/** Where a bare `issues.labeled` delivery comes from: its installation, repository and sender. */
export interface LabeledFrom {
  installation: number;
  repository: string;
  sender: string;
}

/**
 * The context of an `issues.labeled` delivery that holds only what a trigger desk reads (installation, repository,
 * issue, sender), for tests of the desk itself rather than of a rule.
 */
export function labeledTrigger(delivery: string, issue: number, from: LabeledFrom, client: { octokit: Octokit; log: Parameters<typeof triggerContext>[2] }) {
  return triggerContext(
    {
      delivery,
      event: "issues.labeled",
      payload: {
        action: "labeled",
        installation: { id: from.installation },
        repository: { name: from.repository, owner: { login: "octo" } },
        issue: { number: issue },
        sender: { login: from.sender, type: "User" },
      },
    },
    client.octokit,
    client.log,
  );
}
