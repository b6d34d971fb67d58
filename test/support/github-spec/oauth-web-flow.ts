import { randomBytes } from "node:crypto";
import type { Reply } from "./github-rules.js";
import { reportViolation } from "./violations.js";

/**
 * GitHub's OAuth web flow as the fake's web side serves it, held to GitHub's documentation, which is its only
 * description (the OAuth endpoints are not in the REST API's OpenAPI description): "Generating a user access token for
 * a GitHub App" (GET /login/oauth/authorize with client_id, redirect_uri, state; POST /login/oauth/access_token with
 * client_id, client_secret, code, redirect_uri; GET /user with the user's token), "Troubleshooting authorization request
 * errors" and "Troubleshooting OAuth app access token request errors" (the refusals below, word for word; GitHub
 * answers them with 200). A code works once and for ten minutes, as the documentation says.
 */

/** The App's OAuth client as registered at the fake: its id, secret, and callback URLs (the first is the default). */
export interface FakeOAuthClient {
  clientId: string;
  clientSecret: string;
  callbackUrls: string[];
}

/** The flow's state: who is signed in at the fake, the codes handed out, and the user tokens they became. */
export interface OAuthWebFlow {
  /** Signs `login` in at the fake's web side (null: nobody), as a person signs in at github.com before authorizing. */
  signIn(login: string | null): void;
  /** The user id GitHub shows for `login`: stable, one per login. */
  idOf(login: string): number;
  authorize(uri: string): Reply;
  accessToken(uri: string, body: unknown, headers: Record<string, string | string[] | undefined>): Reply;
  /** The login a user access token (`Authorization: Bearer ghu_…`) belongs to, or undefined. */
  userOf(headers: Record<string, string | string[] | undefined>): string | undefined;
  /** Ends the ten minutes of every code handed out so far (a visitor slow to come back). */
  expireCodes(): void;
}

const TEN_MINUTES = 600_000;
const DOCS = "/apps/managing-oauth-apps";
const REFUSALS = {
  incorrect_client_credentials: {
    error_description: "The client_id and/or client_secret passed are incorrect.",
    error_uri: `${DOCS}/troubleshooting-oauth-app-access-token-request-errors/#incorrect-client-credentials`,
  },
  redirect_uri_mismatch: {
    error_description: "The redirect_uri MUST match the registered callback URL for this application.",
    error_uri: `${DOCS}/troubleshooting-authorization-request-errors/#redirect-uri-mismatch2`,
  },
  bad_verification_code: {
    error_description: "The code passed is incorrect or expired.",
    error_uri: `${DOCS}/troubleshooting-oauth-app-access-token-request-errors/#bad-verification-code`,
  },
} as const;

/** The flow of one App's client; without a client the fake knows none, and answers as GitHub does an unknown one (404). */
export function oauthWebFlow(client: FakeOAuthClient | undefined): OAuthWebFlow {
  let signedIn: string | null = null;
  const ids = new Map<string, number>();
  const codes = new Map<string, { redirectUri: string; login: string; expires: number; used: boolean }>();
  const tokens = new Map<string, string>();
  const idOf = (login: string) => {
    if (!ids.has(login)) ids.set(login, 5_000 + ids.size);
    return ids.get(login)!;
  };
  const refuse = (error: keyof typeof REFUSALS, accept: string): Reply => answer(accept, { error, ...REFUSALS[error] });
  return {
    signIn: (login) => void (signedIn = login),
    idOf,
    authorize(uri) {
      const query = new URLSearchParams(uri.split("?")[1] ?? "");
      if (!client || query.get("client_id") !== client.clientId) return [404, "Not Found (no OAuth client has this client_id)"];
      const state = query.get("state");
      // GitHub takes a request without state, but its documentation says to send one against forgery: the app must.
      if (!state) reportViolation(`GET ${uri}`, 'the authorization request carries no state (GitHub\'s docs: "You should always send a state")');
      const asked = query.get("redirect_uri");
      if (asked !== null && !client.callbackUrls.includes(asked)) {
        // GitHub sends the visitor to the registered callback with the error, not to the address it was given.
        const back = new URL(client.callbackUrls[0]!);
        back.search = new URLSearchParams({ error: "redirect_uri_mismatch", ...REFUSALS.redirect_uri_mismatch, ...(state ? { state } : {}) }).toString();
        return [302, "", { location: back.toString() }];
      }
      if (!signedIn) {
        reportViolation(`GET ${uri}`, "nobody is signed in at the fake GitHub: call signInAtGitHub(login) before the sign-in starts");
        return [200, "Sign in to GitHub to continue (the fake shows no login form)"];
      }
      const redirectUri = asked ?? client.callbackUrls[0]!;
      const code = randomBytes(10).toString("hex");
      codes.set(code, { redirectUri, login: signedIn, expires: Date.now() + TEN_MINUTES, used: false });
      const back = new URL(redirectUri);
      back.searchParams.set("code", code);
      if (state) back.searchParams.set("state", state);
      return [302, "", { location: back.toString() }];
    },
    accessToken(uri, body, headers) {
      const accept = String(headers.accept ?? "");
      const given = new URLSearchParams(uri.split("?")[1] ?? "");
      const fields = typeof body === "string" ? new URLSearchParams(body) : new URLSearchParams((body ?? {}) as Record<string, string>);
      const field = (name: string) => fields.get(name) ?? given.get(name);
      if (!client || field("client_id") !== client.clientId || field("client_secret") !== client.clientSecret)
        return refuse("incorrect_client_credentials", accept);
      const code = codes.get(field("code") ?? "");
      if (!code || code.used || code.expires <= Date.now()) return refuse("bad_verification_code", accept);
      const redirectUri = field("redirect_uri");
      if (redirectUri !== null && redirectUri !== code.redirectUri) return refuse("redirect_uri_mismatch", accept);
      code.used = true;
      const token = `ghu_${randomBytes(18).toString("base64url")}`;
      tokens.set(token, code.login);
      const grant = {
        access_token: token,
        expires_in: 28_800,
        refresh_token: `ghr_${randomBytes(30).toString("base64url")}`,
        refresh_token_expires_in: 15_897_600,
        scope: "",
        token_type: "bearer",
      };
      return answer(accept, grant);
    },
    userOf(headers) {
      const match = /^(?:bearer|token) (ghu_\S+)$/i.exec(String(headers.authorization ?? ""));
      return match ? tokens.get(match[1]!) : undefined;
    },
    expireCodes: () => codes.forEach((code) => (code.expires = 0)),
  };
}

/** An answer of the token endpoint: JSON when the request accepts it, else form-encoded, as GitHub answers by default. */
function answer(accept: string, fields: Record<string, string | number>): Reply {
  if (accept.includes("application/json")) return [200, fields];
  const form = new URLSearchParams(Object.entries(fields).map(([name, value]) => [name, String(value)])).toString();
  return [200, form, { "content-type": "application/x-www-form-urlencoded; charset=utf-8" }];
}
