import { createHmac } from "node:crypto";
import { githubUrls } from "../github/client/github-urls.js";
import { exchangeOAuthCode } from "../github/read/exchange-oauth-code.js";
import type { SessionAuthOptions } from "../server/session-auth.js";
import type { Settings } from "./settings/settings-table.js";

/** The session pages as the settings turn them on: the sign-in's options, and whether public repositories' sessions are open. */
export interface SessionPages {
  /** Where people reach the web role (MAGIS_PUBLIC_URL, no trailing slash): the pages' links are under it. */
  publicUrl: string;
  /** What createSessionAuth takes: the App's OAuth client, the cookies' key, GitHub's side of the code exchange. */
  auth: SessionAuthOptions;
  /** MAGIS_SESSIONS_PUBLIC: a public repository's sessions are readable by everyone. */
  sessionsPublic: boolean;
}

/** The settings a session page needs, each with what it is, in the order the message names the missing ones. */
const NEEDED = [
  ["GITHUB_CLIENT_ID", "the App's OAuth client ID"],
  ["GITHUB_CLIENT_SECRET", "its client secret"],
  ["MAGIS_PUBLIC_URL", "where people reach the web role"],
] as const;

/**
 * Whether the session pages are on, and with what: on only with GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET and
 * MAGIS_PUBLIC_URL; otherwise `off` says which are missing, so the web role, the status comment and the pull request
 * agree (no page, no link). The cookies' key is MAGIS_SESSION_SECRET, or derived from the client secret with HMAC, so
 * that every web process of one App signs alike without another setting.
 */
export function sessionPagesFrom(settings: Settings): SessionPages | { off: string } {
  const { clientId, clientSecret } = settings.app;
  const { publicUrl, sessionSecret, sessionsPublic } = settings.server;
  const held = { GITHUB_CLIENT_ID: clientId, GITHUB_CLIENT_SECRET: clientSecret, MAGIS_PUBLIC_URL: publicUrl };
  const missing = NEEDED.filter(([name]) => !held[name]);
  if (!clientId || !clientSecret || !publicUrl) {
    const names = missing.map(([name, what]) => `${name} (${what})`).join(", ");
    return { off: `the session pages are off: set ${names} to turn them on (docs/deploy.md, "The session pages")` };
  }
  const urls = githubUrls(settings.github);
  const client = { urls, clientId, clientSecret, timeoutMs: settings.github.timeoutMs };
  return {
    publicUrl,
    sessionsPublic,
    auth: {
      publicUrl,
      clientId,
      secret: sessionSecret ?? createHmac("sha256", clientSecret).update("MAGIS session cookies").digest("hex"),
      webUrl: urls.web,
      exchangeCode: (code, redirectUri) => exchangeOAuthCode(client, code, redirectUri),
    },
  };
}
