import type { IssueRef, Octokit } from "../types.js";

/** Whether a review of a pull request carries at least one inline comment (a lone reply in a thread counts). */
export async function hasReviewComments(octokit: Octokit, pull: IssueRef, reviewId: number): Promise<boolean> {
  const { data } = await octokit.rest.pulls.listCommentsForReview({
    owner: pull.owner,
    repo: pull.repo,
    pull_number: pull.number,
    review_id: reviewId,
    per_page: 1,
  });
  return data.length > 0;
}
