/**
 * Rules GitHub enforces that its published descriptions do not state, modelled with the source of each: the shape of
 * GitHub's answer is as it was quoted from the real API in the thread named.
 */

/** A reply of the fake: status, body, and headers beyond the content type. */
export type Reply = [number, unknown] | [number, unknown, Record<string, string>];

/** The most characters GitHub takes in an issue's or pull request's body, a comment, or a review comment. */
export const BODY_LIMIT = 65_536;

/** The operations whose `body` is capped, and the resource GitHub names in its refusal (a pull request's body is its issue's). */
const CAPPED_BODIES: Record<string, string> = {
  "POST /repos/{owner}/{repo}/issues/{issue_number}/comments": "IssueComment",
  "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}": "IssueComment",
  "POST /repos/{owner}/{repo}/pulls": "Issue",
  "PATCH /repos/{owner}/{repo}/pulls/{pull_number}": "Issue",
  "POST /repos/{owner}/{repo}/pulls/{pull_number}/comments": "PullRequestReviewComment",
};

/**
 * GitHub's 422 for a body past BODY_LIMIT characters (counted as characters, not UTF-16 units). Source: the answer
 * quoted in github.com/dtschust/redux-bug-reporter/issues/27 ("body is too long (maximum is 65536 characters)").
 */
export function bodyTooLong(key: string, body: unknown): Reply | undefined {
  const resource = CAPPED_BODIES[key];
  const text = (body as { body?: unknown } | undefined)?.body;
  if (!resource || typeof text !== "string" || [...text].length <= BODY_LIMIT) return undefined;
  const message = `body is too long (maximum is ${BODY_LIMIT} characters)`;
  return [422, { message: "Validation Failed", errors: [{ resource, code: "custom", field: "body", message }] }];
}

/**
 * GitHub's 422 for a second open pull request from the same head. Source: the answers quoted in
 * github.com/vsoch/pull-request-action/issues/86 and github.com/github/VisualStudio/issues/453.
 */
export function duplicatePull(owner: string, head: string): Reply {
  return [
    422,
    { message: "Validation Failed", errors: [{ resource: "PullRequest", code: "custom", message: `A pull request already exists for ${owner}:${head}.` }] },
  ];
}

/**
 * GitHub's 422 for a pull request whose head branch does not exist. Source: the answer quoted in
 * github.com/stackitcloud/cloud-provider-stackit/pull/10 and github.com/shepherd-tools/shepherd/issues/51.
 */
export function missingHead(): Reply {
  return [422, { message: "Validation Failed", errors: [{ resource: "PullRequest", field: "head", code: "invalid" }] }];
}

/**
 * What the collaborator-permission API answers for someone who is not a collaborator: on a public repository every
 * account can read, so GitHub answers `read` (source: github.com/aws-ia/cloudformation-github-resource-providers/pull/14,
 * "the permission was always 'read' assigned to every user"); on a private one, a 404.
 */
export function nonCollaboratorPermission(isPrivate: boolean, login: string, user: object): Reply {
  if (isPrivate) return [404, { message: `${login} is not a user` }];
  return [200, { permission: "read", role_name: "read", user }];
}

/**
 * A scripted fault of FakeGitHubOptions: a secondary rate limit on the first `times` requests matching, GitHub's 403
 * with `retry-after` in seconds. Source: GitHub's "Rate limits for the REST API" (docs.github.com/rest/using-the-rest-api/
 * rate-limits-for-the-rest-api): "If the retry-after response header is present, you should not retry your request
 * until after that many seconds has elapsed"; the message is the one GitHub sends.
 */
export function secondaryRateLimit(method: string, path: RegExp, options: { times: number; retryAfter: number }) {
  return {
    method,
    path,
    status: 403,
    times: options.times,
    message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
    headers: { "retry-after": String(options.retryAfter) },
  };
}

/**
 * The operations the fake serves to a user's access token (`ghu_…`, from the OAuth web flow) though GitHub's
 * description marks them not enabled for GitHub Apps, a flag that speaks of installation tokens. Source: GitHub's
 * "Generating a user access token for a GitHub App", which reads the signed-in user with GET /user and that token.
 */
export const USER_TOKEN_OPERATIONS = ["GET /user"] as const;

/** Whether a request carries a user access token (GitHub's `ghu_` prefix), not an installation's (`ghs_`). */
export function carriesUserToken(headers: Record<string, string | string[] | undefined>): boolean {
  return /^(?:bearer|token) ghu_/i.test(String(headers.authorization ?? ""));
}
