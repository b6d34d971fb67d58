import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { redactSecrets } from "../lib/redact-secrets.js";
import { cookieHeader, readCookie } from "./auth/cookies.js";
import { AUTH_PAGE_CSP, renderAuthPage, type AuthPage } from "./auth/render-auth-page.js";
import { safeReturnPath } from "./auth/safe-return-path.js";
import { macOf, readSigned, sameText, signValue } from "./auth/sign-value.js";
import { readBodyWithin } from "./read-body-within.js";

/** Who a signed-in visitor is on GitHub: what the session cookie holds, and nothing more. */
export interface Viewer {
  login: string;
  id: number;
}

/** The sign-in of the session pages: GitHub's OAuth web flow, signed cookies, and the CSRF token of every form. */
export interface SessionAuth {
  /** Answers GET /auth/github/login?return_to=…, GET /auth/github/callback, POST /auth/signout; returns whether it did. */
  handle(request: IncomingMessage, response: ServerResponse): boolean;
  /** The signed-in viewer of a request (a valid, unexpired, signed cookie), or null. */
  viewer(request: IncomingMessage): Viewer | null;
  /** Where to send a signed-out visitor so that they come back to `returnTo` (a path on this server). */
  signInUrl(returnTo: string): string;
  /** The CSRF token of the request's signed-in session (a hidden `csrf` field in every POST form), and its check. */
  csrfToken(request: IncomingMessage): string | null;
  checkCsrf(request: IncomingMessage, token: string | undefined): boolean;
}

/** What the sign-in needs: where people reach this server, the App's OAuth client, the cookies' key, and GitHub's side of the exchange. */
export interface SessionAuthOptions {
  /** Where people reach this server (MAGIS_PUBLIC_URL), without a trailing slash: the callback and every redirect are under it. */
  publicUrl: string;
  /** The GitHub App's OAuth client id (GITHUB_CLIENT_ID). */
  clientId: string;
  /** The key every cookie is signed with (MAGIS_SESSION_SECRET); every web process must hold the same one. */
  secret: string;
  /** Turns the callback's code into the user it signed in (the adapter's exchangeOAuthCode); the user's token goes no further. */
  exchangeCode: (code: string, redirectUri: string) => Promise<Viewer>;
  /** GitHub's web side, where people sign in: https://github.com, or a GitHub Enterprise Server. */
  webUrl?: string;
  now?: () => number;
  /** How long a sign-in lasts (default 8 hours). */
  maxAgeSeconds?: number;
  /** Where a refused exchange is told to the operator (a wrong client secret shows there). */
  log?: { warn: (fields: object, message: string) => void };
}

export const LOGIN_PATH = "/auth/github/login";
export const CALLBACK_PATH = "/auth/github/callback";
export const SIGN_OUT_PATH = "/auth/signout";

const EIGHT_HOURS = 8 * 3600;
/** How long a visitor has at GitHub between leaving and coming back (GitHub's codes last ten minutes). */
const SIGN_IN_SECONDS = 600;
/** A sign-out form carries a token and a path: a few hundred bytes. */
const SIGN_OUT_BODY_BYTES = 4_096;
/** GitHub's logins: letters, digits and single hyphens, at most 39 characters. */
const GITHUB_LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;

/** What the session cookie holds: the viewer and when the sign-in ends, under a kind no other signed cookie has. */
interface SessionValue {
  kind: "session";
  login: string;
  id: number;
  expires: number;
}

/** What the sign-in cookie holds while the visitor is at GitHub: the state sent there, and where to come back to. */
interface SignInValue {
  kind: "sign-in";
  state: string;
  returnTo: string;
  expires: number;
}

/**
 * The sign-in of the session pages through the App's own OAuth client. GET /auth/github/login binds a random state to
 * the browser with a short-lived signed cookie and sends the visitor to GitHub; the callback checks the state, has
 * the code exchanged for who the visitor is, and sets the session cookie: signed (HMAC-SHA256), HttpOnly,
 * SameSite=Lax, Secure over HTTPS, expiring (inside the signed value too), holding the login and id only. The CSRF
 * token of a session is derived from its cookie with the key, so it needs no storage and dies with the session.
 */
export function createSessionAuth(options: SessionAuthOptions): SessionAuth {
  const { publicUrl, clientId, secret, exchangeCode, log } = options;
  const webUrl = (options.webUrl ?? "https://github.com").replace(/\/+$/, "");
  const now = options.now ?? Date.now;
  const maxAgeSeconds = options.maxAgeSeconds ?? EIGHT_HOURS;
  const secure = publicUrl.startsWith("https:");
  const publicOrigin = new URL(publicUrl).origin;
  // Over HTTPS the __Host- prefix makes the browser refuse the cookie unless it is Secure, on Path=/ and without a Domain.
  const prefix = secure ? "__Host-" : "";
  const SESSION = `${prefix}magis_session`;
  const SIGN_IN = `${prefix}magis_sign_in`;
  const redirectUri = `${publicUrl}${CALLBACK_PATH}`;
  const rule = (seconds: number) => ({ maxAgeSeconds: seconds, path: "/", secure });

  const sessionCookie = (request: IncomingMessage): { text: string; value: SessionValue } | null => {
    const text = readCookie(request, SESSION);
    const value = readSigned(secret, text) as Partial<SessionValue> | null;
    if (!text || value?.kind !== "session" || typeof value.expires !== "number" || value.expires <= now()) return null;
    if (typeof value.login !== "string" || !GITHUB_LOGIN.test(value.login) || !Number.isSafeInteger(value.id) || value.id! <= 0) return null;
    return { text, value: value as SessionValue };
  };
  const csrfOf = (cookieText: string) => macOf(secret, `csrf\n${cookieText}`);
  const signInUrl = (returnTo: string) => `${publicUrl}${LOGIN_PATH}?return_to=${encodeURIComponent(safeReturnPath(returnTo))}`;
  const checkCsrf = (request: IncomingMessage, token: string | undefined): boolean => {
    const session = sessionCookie(request);
    if (!session || typeof token !== "string" || token === "") return false;
    // A browser names where a form was sent from; one sent from another site is refused even with a stolen token.
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== publicOrigin) return false;
    if (request.headers["sec-fetch-site"] === "cross-site") return false;
    return sameText(token, csrfOf(session.text));
  };

  const startSignIn = (url: URL, response: ServerResponse) => {
    const state = randomBytes(32).toString("base64url");
    const returnTo = safeReturnPath(url.searchParams.get("return_to"));
    const value: SignInValue = { kind: "sign-in", state, returnTo, expires: now() + SIGN_IN_SECONDS * 1000 };
    const authorize = new URL(`${webUrl}/login/oauth/authorize`);
    authorize.search = new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, state }).toString();
    redirect(response, authorize.toString(), [cookieHeader(SIGN_IN, signValue(secret, value), rule(SIGN_IN_SECONDS))]);
  };

  const finishSignIn = async (request: IncomingMessage, url: URL, response: ServerResponse) => {
    const started = readSigned(secret, readCookie(request, SIGN_IN)) as Partial<SignInValue> | null;
    const forget = cookieHeader(SIGN_IN, "", rule(0));
    const again = (returnTo = "/") => ({ href: signInUrl(returnTo), text: "Sign in with GitHub again" });
    if (started?.kind !== "sign-in" || typeof started.state !== "string" || typeof started.expires !== "number" || started.expires <= now()) {
      const message =
        "This browser holds no sign-in that is under way: it took longer than ten minutes, or it was started in another browser or with cookies off.";
      return page(response, 400, { title: "Sign-in expired", message, link: again() }, [forget]);
    }
    const returnTo = safeReturnPath(started.returnTo);
    const state = url.searchParams.get("state");
    if (state === null || !sameText(state, started.state)) {
      const message =
        "The answer from GitHub does not carry the state this browser was given when its sign-in started, so it is refused: it may come from a sign-in someone else started.";
      return page(response, 400, { title: "Sign-in refused", message, link: again(returnTo) }, [forget]);
    }
    const error = url.searchParams.get("error");
    if (error !== null) {
      const reason = url.searchParams.get("error_description") ?? error;
      const message = `GitHub did not sign you in (${error}): ${reason}`;
      return page(response, error === "access_denied" ? 403 : 502, { title: "Not signed in", message, link: again(returnTo) }, [forget]);
    }
    const code = url.searchParams.get("code");
    if (!code) return page(response, 400, { title: "Sign-in refused", message: "GitHub's answer carries no code.", link: again(returnTo) }, [forget]);
    let viewer: Viewer;
    try {
      viewer = await exchangeCode(code, redirectUri);
    } catch (failure) {
      const reason = redactSecrets(failure instanceof Error ? failure.message : String(failure));
      log?.warn({ reason }, `a sign-in with GitHub failed: ${reason}`);
      const message = `GitHub did not confirm who you are: ${reason}`;
      return page(response, 502, { title: "Not signed in", message, link: again(returnTo) }, [forget]);
    }
    const value: SessionValue = { kind: "session", login: viewer.login, id: viewer.id, expires: now() + maxAgeSeconds * 1000 };
    redirect(response, `${publicUrl}${returnTo}`, [forget, cookieHeader(SESSION, signValue(secret, value), rule(maxAgeSeconds))]);
  };

  const signOut = async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readBodyWithin(request, SIGN_OUT_BODY_BYTES);
    const form = new URLSearchParams(body.ok ? body.text : "");
    if (sessionCookie(request) && !checkCsrf(request, form.get("csrf") ?? undefined)) {
      const message = "The sign-out did not come from this server's own button (its CSRF token is missing or wrong), so you are still signed in.";
      return page(response, 403, { title: "Sign-out refused", message, link: { href: `${publicUrl}/`, text: "Back" } });
    }
    redirect(response, `${publicUrl}${safeReturnPath(form.get("return_to"))}`, [cookieHeader(SESSION, "", rule(0))]);
  };

  const ROUTES: Record<string, { method: string; serve: (request: IncomingMessage, url: URL, response: ServerResponse) => unknown }> = {
    [LOGIN_PATH]: { method: "GET", serve: (_request, url, response) => startSignIn(url, response) },
    [CALLBACK_PATH]: { method: "GET", serve: finishSignIn },
    [SIGN_OUT_PATH]: { method: "POST", serve: (request, _url, response) => signOut(request, response) },
  };

  return {
    handle(request, response) {
      const url = new URL(request.url ?? "/", "http://this.server");
      const route = Object.hasOwn(ROUTES, url.pathname) ? ROUTES[url.pathname]! : undefined;
      if (!route) return false;
      if (request.method !== route.method) {
        response.writeHead(405, { allow: route.method, "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
        response.end(`${url.pathname} answers ${route.method} only\n`);
        return true;
      }
      Promise.resolve(route.serve(request, url, response)).catch((failure: unknown) => {
        const reason = redactSecrets(failure instanceof Error ? failure.message : String(failure));
        log?.warn({ reason }, `the sign-in's ${url.pathname} failed: ${reason}`);
        if (!response.headersSent) page(response, 500, { title: "Sign-in failed", message: reason });
        else response.destroy();
      });
      return true;
    },
    viewer(request) {
      const session = sessionCookie(request);
      return session ? { login: session.value.login, id: session.value.id } : null;
    },
    signInUrl,
    csrfToken(request) {
      const session = sessionCookie(request);
      return session ? csrfOf(session.text) : null;
    },
    checkCsrf,
  };
}

/** A 303 to `location` (a POST's answer becomes a GET), never cached, setting `cookies`. */
function redirect(response: ServerResponse, location: string, cookies: string[]): void {
  response.writeHead(303, { location, "set-cookie": cookies, "cache-control": "no-store", "referrer-policy": "no-referrer" });
  response.end();
}

/** One of the sign-in's pages, under a CSP that allows no script, never cached. */
function page(response: ServerResponse, status: number, content: AuthPage, cookies: string[] = []): void {
  response.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": AUTH_PAGE_CSP,
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    ...(cookies.length > 0 && { "set-cookie": cookies }),
  });
  response.end(renderAuthPage(content));
}
