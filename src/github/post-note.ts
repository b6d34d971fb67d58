import type { Context } from "probot";

/**
 * Posts a note after the job store has recorded the decision: its failure is logged, not thrown, since throwing would
 * record the trigger as failed and a redelivery would then find the job recorded and say nothing at all.
 */
export async function postNote(context: Context<any>, body: string, number?: number): Promise<void> {
  try {
    await context.octokit.rest.issues.createComment(number === undefined ? context.issue({ body }) : context.repo({ issue_number: number, body }));
  } catch (error) {
    context.log.warn({ delivery: context.id, error: error instanceof Error ? error.message : String(error) }, "a note on the issue could not be posted");
  }
}
