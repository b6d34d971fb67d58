import { capBody } from "../publish/fit-body.js";
import type { IssueRef, Octokit } from "../types.js";
import { postIssueComment } from "../publish/post-issue-comment.js";

/**
 * Posts a note after the job store has recorded the decision: its failure is logged, not thrown, since throwing would
 * record the trigger as failed and a redelivery would then find the job recorded and say nothing at all.
 */
export async function postNote(octokit: Octokit, where: IssueRef, body: string, log: { warn: (obj: object, msg: string) => void }): Promise<void> {
  try {
    await postIssueComment(octokit, where, capBody(body));
  } catch (error) {
    log.warn({ error: error instanceof Error ? error.message : String(error) }, "a note on the issue could not be posted");
  }
}
