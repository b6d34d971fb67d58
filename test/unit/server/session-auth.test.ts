import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { safeReturnPath } from "../../../src/server/auth/safe-return-path.js";
import { readSigned, signValue } from "../../../src/server/auth/sign-value.js";
import { createSessionAuth, type SessionAuth, type Viewer } from "../../../src/server/session-auth.js";

const SECRET = "k".repeat(40);
const HOUR = 3_600_000;
let server: http.Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A server answering the sign-in's routes, and GET /whoami with the viewer and the CSRF token's check of `?csrf=`. */
async function serve(options: { publicUrl?: string; exchange?: (code: string, redirectUri: string) => Promise<Viewer>; clock?: { now: number } } = {}) {
  const clock = options.clock ?? { now: Date.UTC(2026, 0, 1) };
  const exchanged: { code: string; redirectUri: string }[] = [];
  server = http.createServer((request, response) => {
    if (auth.handle(request, response)) return;
    const url = new URL(request.url!, "http://x");
    const csrf = url.searchParams.get("csrf") ?? undefined;
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ viewer: auth.viewer(request), csrf: auth.csrfToken(request), csrfOk: auth.checkCsrf(request, csrf) }));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const publicUrl = options.publicUrl ?? base;
  // The handler above reads it only once requests arrive, after it is made.
  const auth: SessionAuth = createSessionAuth({
    publicUrl,
    clientId: "Iv1.client",
    secret: SECRET,
    webUrl: "https://github.example",
    now: () => clock.now,
    exchangeCode: async (code, redirectUri) => {
      exchanged.push({ code, redirectUri });
      return options.exchange ? options.exchange(code, redirectUri) : { login: "octocat", id: 583231 };
    },
  });
  return { base, auth, clock, exchanged };
}

/** The cookies a response sets, by name: value and attributes. */
function cookiesOf(response: Response): Record<string, { value: string; attributes: string }> {
  return Object.fromEntries(
    response.headers.getSetCookie().map((line) => {
      const [pair, ...attributes] = line.split("; ");
      const at = pair!.indexOf("=");
      return [pair!.slice(0, at), { value: decodeURIComponent(pair!.slice(at + 1)), attributes: attributes.join("; ") }];
    }),
  );
}

const get = (url: string, cookie?: string) => fetch(url, { redirect: "manual", headers: cookie ? { cookie } : {} });

/** Signs in through the login and callback routes, GitHub's side played by the test: the session cookie. */
async function signIn(base: string, returnTo = "/jobs/7"): Promise<{ cookie: string; callback: Response }> {
  const login = await get(`${base}/auth/github/login?return_to=${encodeURIComponent(returnTo)}`);
  const state = new URL(login.headers.get("location")!).searchParams.get("state")!;
  const signInCookie = cookiesOf(login).magis_sign_in!;
  const callback = await get(`${base}/auth/github/callback?code=c0de&state=${state}`, `magis_sign_in=${encodeURIComponent(signInCookie.value)}`);
  const session = cookiesOf(callback).magis_session;
  return { cookie: session ? `magis_session=${encodeURIComponent(session.value)}` : "", callback };
}

async function whoami(base: string, cookie: string, csrf?: string) {
  const response = await get(`${base}/whoami${csrf === undefined ? "" : `?csrf=${encodeURIComponent(csrf)}`}`, cookie);
  return (await response.json()) as { viewer: Viewer | null; csrf: string | null; csrfOk: boolean };
}

describe("signed values", () => {
  it("reads back what it signed, and nothing tampered, cut or signed with another key", () => {
    const text = signValue(SECRET, { kind: "session", login: "octocat" });
    expect(readSigned(SECRET, text)).toEqual({ kind: "session", login: "octocat" });
    const [body, mac] = text.split(".") as [string, string];
    const forged = Buffer.from(JSON.stringify({ kind: "session", login: "admin" })).toString("base64url");
    expect(readSigned(SECRET, `${forged}.${mac}`)).toBeNull();
    expect(readSigned(SECRET, `${body}.${mac.slice(0, -2)}`)).toBeNull();
    expect(readSigned(SECRET, body)).toBeNull();
    expect(readSigned("another key of forty characters, or so!!", text)).toBeNull();
    expect(readSigned(SECRET, undefined)).toBeNull();
  });
});

describe("return_to", () => {
  it.each([
    ["/jobs/12", "/jobs/12"],
    ["/jobs/12?tab=diff#c3", "/jobs/12?tab=diff#c3"],
    ["/a/../jobs/3", "/jobs/3"],
    ["https://evil.example/jobs/1", "/"],
    ["//evil.example/jobs/1", "/"],
    ["/\\evil.example", "/"],
    ["\\/evil.example", "/"],
    ["/jobs/1\r\nSet-Cookie: x=1", "/"],
    ["javascript:alert(1)", "/"],
    ["jobs/1", "/"],
    ["", "/"],
    [null, "/"],
    [`/${"a".repeat(3000)}`, "/"],
  ])("%j is taken as %j", (raw, wanted) => {
    expect(safeReturnPath(raw)).toBe(wanted);
  });
});

describe("the sign-in", () => {
  it("sends the visitor to GitHub with the client, this server's callback and a state bound to the browser", async () => {
    const { base } = await serve();
    const login = await get(`${base}/auth/github/login?return_to=/jobs/7`);
    expect(login.status).toBe(303);
    const to = new URL(login.headers.get("location")!);
    expect(`${to.origin}${to.pathname}`).toBe("https://github.example/login/oauth/authorize");
    expect(to.searchParams.get("client_id")).toBe("Iv1.client");
    expect(to.searchParams.get("redirect_uri")).toBe(`${base}/auth/github/callback`);
    const state = to.searchParams.get("state")!;
    expect(state).toMatch(/^[\w-]{43}$/);
    const cookie = cookiesOf(login).magis_sign_in!;
    expect(cookie.attributes).toBe("Max-Age=600; Path=/; HttpOnly; SameSite=Lax");
    expect(readSigned(SECRET, cookie.value)).toMatchObject({ kind: "sign-in", state, returnTo: "/jobs/7" });
    // Each sign-in gets its own state.
    const again = new URL((await get(`${base}/auth/github/login`)).headers.get("location")!);
    expect(again.searchParams.get("state")).not.toBe(state);
  });

  it("comes back signed in where it started: a session cookie with the login and id only, and the code exchanged with the callback's address", async () => {
    const { base, exchanged } = await serve();
    const { cookie, callback } = await signIn(base, "/jobs/7?tab=diff");
    expect(callback.status).toBe(303);
    expect(callback.headers.get("location")).toBe(`${base}/jobs/7?tab=diff`);
    expect(exchanged).toEqual([{ code: "c0de", redirectUri: `${base}/auth/github/callback` }]);
    const cookies = cookiesOf(callback);
    expect(cookies.magis_session!.attributes).toBe("Max-Age=28800; Path=/; HttpOnly; SameSite=Lax");
    expect(cookies.magis_sign_in!.attributes).toMatch(/^Max-Age=0;/);
    expect(Object.keys(readSigned(SECRET, cookies.magis_session!.value) as object).sort()).toEqual(["expires", "id", "kind", "login"]);
    expect((await whoami(base, cookie)).viewer).toEqual({ login: "octocat", id: 583231 });
    expect((await whoami(base, "")).viewer).toBeNull();
  });

  it("never sends the visitor off this server after signing in", async () => {
    const { base } = await serve();
    const { callback } = await signIn(base, "//evil.example/steal");
    expect(callback.headers.get("location")).toBe(`${base}/`);
  });

  it("refuses a callback whose state is not the browser's, or without the browser's sign-in, with a page saying so", async () => {
    const { base, exchanged } = await serve();
    const login = await get(`${base}/auth/github/login?return_to=/jobs/7`);
    const signInCookie = `magis_sign_in=${encodeURIComponent(cookiesOf(login).magis_sign_in!.value)}`;
    const wrong = await get(`${base}/auth/github/callback?code=c0de&state=someone-elses`, signInCookie);
    expect(wrong.status).toBe(400);
    expect(wrong.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await wrong.text()).toContain("does not carry the state this browser was given");
    expect(cookiesOf(wrong).magis_session).toBeUndefined();
    const none = await get(`${base}/auth/github/callback?code=c0de&state=x`);
    expect(none.status).toBe(400);
    expect(await none.text()).toContain("no sign-in that is under way");
    expect(exchanged).toEqual([]);
  });

  it("refuses a sign-in older than ten minutes", async () => {
    const { base, clock, exchanged } = await serve();
    const login = await get(`${base}/auth/github/login`);
    const state = new URL(login.headers.get("location")!).searchParams.get("state")!;
    clock.now += 601_000;
    const late = await get(
      `${base}/auth/github/callback?code=c0de&state=${state}`,
      `magis_sign_in=${encodeURIComponent(cookiesOf(login).magis_sign_in!.value)}`,
    );
    expect(late.status).toBe(400);
    expect(exchanged).toEqual([]);
  });

  it("says what GitHub answered when it signs nobody in: a refused authorization, a refused code", async () => {
    const refusing = await serve({
      exchange: async () => {
        throw new Error("GitHub refused the sign-in's code (bad_verification_code: The code passed is incorrect or expired.)");
      },
    });
    const { callback } = await signIn(refusing.base);
    expect(callback.status).toBe(502);
    expect(await callback.text()).toContain("bad_verification_code");
    expect(cookiesOf(callback).magis_session).toBeUndefined();
    const login = await get(`${refusing.base}/auth/github/login`);
    const state = new URL(login.headers.get("location")!).searchParams.get("state")!;
    const denied = await get(
      `${refusing.base}/auth/github/callback?error=access_denied&error_description=The+user+has+denied+your+application+access.&state=${state}`,
      `magis_sign_in=${encodeURIComponent(cookiesOf(login).magis_sign_in!.value)}`,
    );
    expect(denied.status).toBe(403);
    expect(await denied.text()).toContain("The user has denied your application access.");
  });

  it("links a signed-out visitor to the sign-in with where to come back, refusing another site", async () => {
    const { base, auth } = await serve();
    expect(auth.signInUrl("/jobs/3?x=1")).toBe(`${base}/auth/github/login?return_to=%2Fjobs%2F3%3Fx%3D1`);
    expect(auth.signInUrl("https://evil.example")).toBe(`${base}/auth/github/login?return_to=%2F`);
  });

  it("answers only its own methods", async () => {
    const { base } = await serve();
    const wrong = await fetch(`${base}/auth/github/login`, { method: "POST" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET");
  });
});

describe("the session cookie", () => {
  it("is refused when tampered with, expired, or signed with another key", async () => {
    const { base, clock } = await serve();
    const { cookie } = await signIn(base);
    const value = decodeURIComponent(cookie.slice("magis_session=".length));
    const [, mac] = value.split(".");
    const forged = Buffer.from(JSON.stringify({ kind: "session", login: "admin", id: 1, expires: clock.now + HOUR })).toString("base64url");
    expect((await whoami(base, `magis_session=${forged}.${mac}`)).viewer).toBeNull();
    const otherKey = signValue("another key of forty characters, or so!!", { kind: "session", login: "octocat", id: 583231, expires: clock.now + HOUR });
    expect((await whoami(base, `magis_session=${encodeURIComponent(otherKey)}`)).viewer).toBeNull();
    // A sign-in cookie is signed with the same key, but is no session.
    const signInValue = signValue(SECRET, { kind: "sign-in", login: "octocat", id: 583231, expires: clock.now + HOUR });
    expect((await whoami(base, `magis_session=${encodeURIComponent(signInValue)}`)).viewer).toBeNull();
    expect((await whoami(base, cookie)).viewer).toEqual({ login: "octocat", id: 583231 });
    clock.now += 8 * HOUR;
    expect((await whoami(base, cookie)).viewer).toBeNull();
  });

  it("is Secure and __Host- prefixed when people reach the server over HTTPS", async () => {
    const { base } = await serve({ publicUrl: "https://magis.example.com" });
    const login = await get(`${base}/auth/github/login`);
    const [name, cookie] = Object.entries(cookiesOf(login))[0]!;
    expect(name).toBe("__Host-magis_sign_in");
    expect(cookie.attributes).toBe("Max-Age=600; Path=/; HttpOnly; SameSite=Lax; Secure");
    expect(new URL(login.headers.get("location")!).searchParams.get("redirect_uri")).toBe("https://magis.example.com/auth/github/callback");
  });
});

describe("CSRF", () => {
  it("has a token only for a signed-in session, checked against that session alone", async () => {
    const { base, clock } = await serve();
    const first = await signIn(base);
    const token = (await whoami(base, first.cookie)).csrf!;
    expect(token).toMatch(/^[\w-]{43}$/);
    expect((await whoami(base, first.cookie, token)).csrfOk).toBe(true);
    expect((await whoami(base, first.cookie, `${token.slice(0, -1)}A`)).csrfOk).toBe(false);
    expect((await whoami(base, first.cookie, "")).csrfOk).toBe(false);
    expect((await whoami(base, first.cookie)).csrfOk).toBe(false);
    expect(await whoami(base, "", token)).toEqual({ viewer: null, csrf: null, csrfOk: false });
    // Another sign-in (a second later: the token is derived from the cookie, which holds when it ends) has its own.
    clock.now += 1_000;
    const second = await signIn(base);
    expect((await whoami(base, second.cookie, token)).csrfOk).toBe(false);
  });

  it("refuses a form sent from another site even with the token", async () => {
    const { base } = await serve();
    const { cookie } = await signIn(base);
    const token = (await whoami(base, cookie)).csrf!;
    const from = async (headers: Record<string, string>) =>
      ((await (await fetch(`${base}/whoami?csrf=${token}`, { headers: { cookie, ...headers } })).json()) as { csrfOk: boolean }).csrfOk;
    expect(await from({ origin: base })).toBe(true);
    expect(await from({ origin: "https://evil.example" })).toBe(false);
    expect(await from({ "sec-fetch-site": "cross-site" })).toBe(false);
  });

  it("signs out only with the session's token, then the cookie is gone", async () => {
    const { base } = await serve();
    const { cookie } = await signIn(base);
    const token = (await whoami(base, cookie)).csrf!;
    const post = (body: string) =>
      fetch(`${base}/auth/signout`, { method: "POST", redirect: "manual", headers: { cookie, "content-type": "application/x-www-form-urlencoded" }, body });
    const refused = await post("csrf=wrong&return_to=/jobs/7");
    expect(refused.status).toBe(403);
    expect(cookiesOf(refused).magis_session).toBeUndefined();
    const done = await post(`csrf=${encodeURIComponent(token)}&return_to=/jobs/7`);
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(`${base}/jobs/7`);
    expect(cookiesOf(done).magis_session).toEqual({ value: "", attributes: "Max-Age=0; Path=/; HttpOnly; SameSite=Lax" });
  });
});
