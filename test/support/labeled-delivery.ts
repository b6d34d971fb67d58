import type { NewTrigger } from "../../src/store/triggers.js";

/**
 * An `issues.labeled` delivery as the trigger desk records (and spools) it: installation 7, octo/demo, sent by alice.
 * `at` is when it arrived, in ms since the epoch: the spool's files sort by it.
 */
export function labeledDelivery(id: string, at: number, issue = 1): NewTrigger {
  const payload = {
    action: "labeled",
    installation: { id: 7 },
    repository: { name: "demo", owner: { login: "octo" } },
    issue: { number: issue, title: `Issue of ${id}`, body: "" },
    sender: { login: "alice", type: "User" },
  };
  return { delivery: id, event: "issues.labeled", installationId: 7, owner: "octo", repo: "demo", number: issue, payload, receivedAt: at };
}
