import { fetchWithTimeout } from "../client/fetch-with-timeout.js";
import type { GitHubUrls } from "../client/github-urls.js";

/** The App's OAuth client and where GitHub is: what turning a sign-in's code into a user takes. */
export interface OAuthClient {
  urls: GitHubUrls;
  clientId: string;
  clientSecret: string;
  /** Most milliseconds each of the two requests may take (MAGIS_GITHUB_TIMEOUT_MS). */
  timeoutMs: number;
}

/** Who signed in: their login and their account's id. */
export interface OAuthUser {
  login: string;
  id: number;
}

/** What each of GitHub's documented refusals of a code means for the operator. */
const ADVICE: Record<string, string> = {
  incorrect_client_credentials: "GITHUB_CLIENT_ID or GITHUB_CLIENT_SECRET is not the GitHub App's: copy both from the App's settings page",
  redirect_uri_mismatch: "the App's callback URL is not this server's: set it on the App's settings page to",
  bad_verification_code: "the code is wrong, used already or older than ten minutes: sign in again",
};

/**
 * The user a sign-in's `code` stands for, by GitHub's OAuth web flow: POST {web}/login/oauth/access_token with the
 * client's id and secret, then GET {api}/user with the user's token. The token is read once, to ask who it belongs
 * to, and then dropped: nothing keeps it. A refusal says GitHub's error and what to do about it.
 */
export async function exchangeOAuthCode(client: OAuthClient, code: string, redirectUri: string): Promise<OAuthUser> {
  const fetch = fetchWithTimeout({ ms: client.timeoutMs, setting: "MAGIS_GITHUB_TIMEOUT_MS" });
  const exchanged = await fetch(`${client.urls.web}/login/oauth/access_token`, {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify({ client_id: client.clientId, client_secret: client.clientSecret, code, redirect_uri: redirectUri }),
  });
  const grant = (await jsonOf(exchanged, "the exchange of the sign-in's code")) as { access_token?: unknown; error?: unknown; error_description?: unknown };
  // GitHub answers a refused code with 200 and an `error` (docs: "Troubleshooting OAuth app access token request errors").
  if (typeof grant.error === "string") {
    const advice = ADVICE[grant.error];
    const said = typeof grant.error_description === "string" ? `: ${grant.error_description}` : "";
    const next = grant.error === "redirect_uri_mismatch" ? `${advice} ${redirectUri}` : advice;
    throw new Error(`GitHub refused the sign-in's code (${grant.error}${said})${next ? `; ${next}` : ""}`);
  }
  if (!exchanged.ok || typeof grant.access_token !== "string")
    throw new Error(`GitHub answered the exchange of the sign-in's code with ${exchanged.status} and no token`);
  const answered = await fetch(`${client.urls.api}/user`, {
    headers: { accept: "application/vnd.github+json", authorization: `Bearer ${grant.access_token}` },
  });
  const user = (await jsonOf(answered, "GET /user")) as { login?: unknown; id?: unknown };
  if (!answered.ok) throw new Error(`GitHub answered GET /user with ${answered.status}: the signed-in user could not be read`);
  if (typeof user.login !== "string" || typeof user.id !== "number") throw new Error("GitHub's GET /user answer has no login and id");
  return { login: user.login, id: user.id };
}

/** The JSON of an answer, or an error naming what was asked when it is not JSON. */
async function jsonOf(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`GitHub answered ${what} with ${response.status} and no JSON`);
  }
}
