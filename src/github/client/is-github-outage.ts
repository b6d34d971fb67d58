/** Network failures that say the other side was not reached, or stopped answering. */
const NETWORK_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "EAI_AGAIN", "ENOTFOUND", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT"]);

/**
 * Whether an error of a call to GitHub is GitHub's trouble, which may pass (a 5xx answer, a 429, no answer within the
 * timeout, a connection that failed), rather than the request's (a 4xx: a missing file, no permission). Looks through
 * the error's causes, as Octokit and fetch wrap them.
 */
export function isGitHubOutage(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { status, code, name, cause } = current as { status?: unknown; code?: unknown; name?: unknown; cause?: unknown };
    if (typeof status === "number") return status >= 500 || status === 429;
    if (name === "AbortError" || (typeof code === "string" && NETWORK_CODES.has(code))) return true;
    current = cause;
  }
  return false;
}
