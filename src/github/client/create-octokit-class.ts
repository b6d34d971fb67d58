import { ProbotOctokit } from "probot";
import { fetchWithTimeout } from "./fetch-with-timeout.js";

/** The options Probot passes to each client it builds, as far as these defaults read them. */
interface ClientOptions {
  baseUrl?: string;
  request?: object;
  retry?: object;
  throttle?: object;
  auth?: { request?: { defaults: (options: object) => unknown } };
}

/** Retries of a 5xx answer or a broken connection (after 1 s, then 4 s); timeouts are not retried. */
const RETRIES = 2;

/** The longest wait for a rate limit the app accepts before retrying once; longer ones fail the call now. */
const MAX_RATE_LIMIT_WAIT_S = 30;

/** The bounds every GitHub API call is made under (the settings' `github` part). */
export interface GitHubBounds {
  /** Most milliseconds one request (headers and body) may take: MAGIS_GITHUB_TIMEOUT_MS. */
  timeoutMs: number;
}

type RateLimitHandler = (
  retryAfter: number,
  options: { method: string; url: string },
  octokit: { log: { warn: (msg: string) => void } },
  retryCount: number,
) => boolean;

// Probot's own handler retries twice whatever the wait (up to an hour for the primary limit); a job cannot hold that long.
const retryIfSoon: RateLimitHandler = (retryAfter, options, octokit, retryCount) => {
  const retry = retryCount < 1 && retryAfter <= MAX_RATE_LIMIT_WAIT_S;
  octokit.log.warn(`GitHub rate limit on ${options.method} ${options.url}: ${retry ? `retrying in ${retryAfter} s` : `not waiting ${retryAfter} s`}`);
  return retry;
};

/**
 * The Octokit class Probot builds every client from (the app's, each installation's, the config loader's), so no
 * call site can forget the bounds: each request times out after `timeoutMs`, 5xx answers are retried twice,
 * and a rate limit is waited out once only when GitHub asks for at most 30 s.
 */
export function createOctokitClass(bounds: GitHubBounds): typeof ProbotOctokit {
  const fetch = fetchWithTimeout({ ms: bounds.timeoutMs, setting: "MAGIS_GITHUB_TIMEOUT_MS" });
  // A function, because Probot passes request, retry and throttle options to every client it builds, and a plain
  // default would be replaced by them instead of merged.
  return ProbotOctokit.defaults((options: ClientOptions) => ({
    ...options,
    request: { ...options.request, fetch },
    retry: { ...options.retry, retries: RETRIES },
    throttle: { ...options.throttle, onRateLimit: retryIfSoon, onSecondaryRateLimit: retryIfSoon },
    // Probot gives the app's auth a request of its own, without the client's baseUrl: an installation token asked for
    // directly (`octokit.auth(…)`, before any API call made one) went to api.github.com, not to a GitHub Enterprise Server.
    ...(options.auth?.request
      ? { auth: { ...options.auth, request: options.auth.request.defaults({ ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}), request: { fetch } }) } }
      : {}),
  }));
}
