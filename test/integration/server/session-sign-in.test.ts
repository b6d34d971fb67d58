import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSessionAccess } from "../../../src/app/session-access.js";
import { sessionPagesFrom } from "../../../src/app/session-pages-from.js";
import { readSettings } from "../../../src/app/settings/read-settings.js";
import { createOctokitClass } from "../../../src/github/client/create-octokit-class.js";
import type { Octokit } from "../../../src/github/types.js";
import { createSessionAuth } from "../../../src/server/session-auth.js";
import { createBareRepository } from "../../support/git-server.js";
import { serveFakeGitHub, type FakeGitHubOptions } from "../../support/github-api.js";

const TOKEN = "ghs_sessionSignInToken0123456789abcd";
const CLIENT = { id: "Iv23liSessionPages01", secret: "0f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6" };
const JOB = { installationId: 1, owner: "octo", repo: "demo" };

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/**
 * The web role's sign-in as the wiring makes it (sessionPagesFrom over the settings, GHE_HOST naming the fake GitHub),
 * in front of GET /jobs/1, which answers the viewer's access to the job or sends a signed-out visitor to sign in.
 */
async function rig(fake: Partial<FakeGitHubOptions>, env: Record<string, string> = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-sign-in-"));
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
  createBareRepository(root, "octo/demo", { "README.md": "Hello\n" });
  let answer: http.RequestListener = () => {};
  const server = http.createServer((request, response) => answer(request, response));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const github = await serveFakeGitHub({
    owner: "octo",
    repo: "demo",
    installationId: 1,
    token: TOKEN,
    gitRoot: root,
    cloneUrl: "http://127.0.0.1:9/octo/demo.git",
    issue: { number: 5, title: "Typo", body: "" },
    oauth: { clientId: CLIENT.id, clientSecret: CLIENT.secret, callbackUrls: [`${base}/auth/github/callback`] },
    ...fake,
  });
  cleanups.push(() => github.close());
  const settings = readSettings(
    {
      GITHUB_CLIENT_ID: CLIENT.id,
      GITHUB_CLIENT_SECRET: CLIENT.secret,
      MAGIS_PUBLIC_URL: base,
      GHE_HOST: github.url.slice("http://".length),
      GHE_PROTOCOL: "http",
      ...env,
    },
    { door: "serve" },
  );
  const pages = sessionPagesFrom(settings);
  if ("off" in pages) throw new Error(pages.off);
  const auth = createSessionAuth(pages.auth);
  const Octokit = createOctokitClass({ timeoutMs: 5_000 });
  const installation = async () => new Octokit({ auth: { token: TOKEN }, baseUrl: `${github.url}/api/v3`, retry: { enabled: false } }) as unknown as Octokit;
  const access = createSessionAccess({ auth: installation, sessionsPublic: pages.sessionsPublic });
  answer = (request, response) => {
    if (auth.handle(request, response)) return;
    const viewer = auth.viewer(request);
    void access(viewer, JOB).then((level) => {
      if (level === "none" && !viewer) return void response.writeHead(303, { location: auth.signInUrl(request.url!) }).end();
      response.writeHead(level === "none" ? 404 : 200, { "content-type": "application/json" }).end(JSON.stringify({ viewer, level }));
    });
  };
  return { base, github };
}

/** A browser's way through redirects, keeping cookies per host: each address it went through, and the last answer. */
async function browse(start: string, jar = new Map<string, string>()) {
  const went: string[] = [];
  let url = start;
  for (let hop = 0; hop < 10; hop++) {
    went.push(url);
    const host = new URL(url).host;
    const cookie = [...jar].filter(([key]) => key.startsWith(`${host} `)).map(([key, value]) => `${key.split(" ")[1]}=${value}`);
    const response = await fetch(url, { redirect: "manual", headers: cookie.length > 0 ? { cookie: cookie.join("; ") } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split("; ");
      const [name, value] = pair!.split("=") as [string, string];
      if (attributes.includes("Max-Age=0")) jar.delete(`${host} ${name}`);
      else jar.set(`${host} ${name}`, value);
    }
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || !location) return { went, response, text: await response.text(), jar };
    url = new URL(location, url).toString();
  }
  throw new Error(`more than 10 redirects from ${start}`);
}

describe("signing in to a session through the fake GitHub's OAuth web flow", () => {
  it("sends a signed-out visitor to GitHub and back signed in; a user with read access reads, one with write steers", async () => {
    const { base, github } = await rig({ private: true, permissions: { alice: "triage", bob: "maintain" } });
    github.oauth.signIn("alice");
    const visit = await browse(`${base}/jobs/1`);
    expect(visit.went.map((url) => new URL(url).pathname)).toEqual([
      "/jobs/1",
      "/auth/github/login",
      "/login/oauth/authorize",
      "/auth/github/callback",
      "/jobs/1",
    ]);
    expect(visit.response.status).toBe(200);
    expect(JSON.parse(visit.text)).toEqual({ viewer: { login: "alice", id: github.oauth.idOf("alice") }, level: "read" });
    // The user's token was used once, to read who they are: GET /user, never kept or sent again.
    const asUser = github.requests.filter((r) => r.path === "/user");
    expect(asUser).toHaveLength(1);
    github.oauth.signIn("bob");
    expect(JSON.parse((await browse(`${base}/auth/github/login?return_to=/jobs/1`)).text)).toMatchObject({ viewer: { login: "bob" }, level: "write" });
  });

  it("gives a signed-in user without access to a private repository nothing: the same 404 as no job", async () => {
    const { base, github } = await rig({ private: true, permissions: { alice: "read" } });
    github.oauth.signIn("mallory");
    const visit = await browse(`${base}/jobs/1`);
    expect(visit.response.status).toBe(404);
    expect(JSON.parse(visit.text)).toMatchObject({ viewer: { login: "mallory" }, level: "none" });
  });

  it("opens a public repository's sessions to a signed-out visitor only with MAGIS_SESSIONS_PUBLIC=1", async () => {
    const closed = await rig({ private: false });
    closed.github.oauth.signIn("passerby");
    const signedOut = await fetch(`${closed.base}/jobs/1`, { redirect: "manual" });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get("location")).toBe(`${closed.base}/auth/github/login?return_to=%2Fjobs%2F1`);
    // GitHub gives every account read on a public repository.
    expect(JSON.parse((await browse(`${closed.base}/jobs/1`)).text)).toMatchObject({ viewer: { login: "passerby" }, level: "read" });

    const open = await rig({ private: false }, { MAGIS_SESSIONS_PUBLIC: "1" });
    const anyone = await browse(`${open.base}/jobs/1`);
    expect(anyone.went).toHaveLength(1);
    expect(JSON.parse(anyone.text)).toEqual({ viewer: null, level: "read" });
    const secret = await rig({ private: true }, { MAGIS_SESSIONS_PUBLIC: "1" });
    expect((await fetch(`${secret.base}/jobs/1`, { redirect: "manual" })).status).toBe(303);
  });

  it("asks GitHub once a minute per viewer and repository, not on every visit", async () => {
    const { base, github } = await rig({ private: true, permissions: { alice: "write" } });
    github.oauth.signIn("alice");
    const first = await browse(`${base}/jobs/1`);
    for (let visit = 0; visit < 3; visit++) expect(JSON.parse((await browse(`${base}/jobs/1`, first.jar)).text).level).toBe("write");
    expect(github.find("GET", /\/collaborators\/alice\/permission$/)).toHaveLength(1);
  });

  it("says what GitHub refused: a code used twice, an expired code, a wrong client secret, a callback the App does not list", async () => {
    const { base, github } = await rig({ private: true, permissions: { alice: "read" } });
    github.oauth.signIn("alice");
    // The callback's address, replayed: its code has been used.
    const first = await browse(`${base}/jobs/1`);
    const callback = first.went[3]!;
    const login = await fetch(`${base}/auth/github/login?return_to=/jobs/1`, { redirect: "manual" });
    const state = new URL(login.headers.get("location")!).searchParams.get("state")!;
    const signInCookie = login.headers.getSetCookie()[0]!.split("; ")[0]!;
    const replayed = new URL(callback);
    replayed.searchParams.set("state", state);
    const again = await fetch(replayed, { redirect: "manual", headers: { cookie: signInCookie } });
    expect(again.status).toBe(502);
    expect(await again.text()).toContain("bad_verification_code: The code passed is incorrect or expired.");

    // A visitor slow to come back from GitHub: the code's ten minutes have passed.
    const slow = await fetch(`${base}/auth/github/login?return_to=/jobs/1`, { redirect: "manual" });
    const authorize = await fetch(slow.headers.get("location")!, { redirect: "manual" });
    github.oauth.expireCodes();
    const late = await fetch(authorize.headers.get("location")!, { redirect: "manual", headers: { cookie: slow.headers.getSetCookie()[0]!.split("; ")[0]! } });
    expect(late.status).toBe(502);
    expect(await late.text()).toContain("bad_verification_code");

    const wrongSecret = await rig({ private: true, permissions: { alice: "read" } }, { GITHUB_CLIENT_SECRET: "not-the-apps-secret-0123456789abcdef" });
    wrongSecret.github.oauth.signIn("alice");
    const refused = await browse(`${wrongSecret.base}/jobs/1`);
    expect(refused.response.status).toBe(502);
    expect(refused.text).toContain("incorrect_client_credentials");
    expect(refused.text).toContain("GITHUB_CLIENT_ID or GITHUB_CLIENT_SECRET is not the GitHub App&#39;s");
    expect(refused.text).not.toContain("not-the-apps-secret");

    // The App's settings list another callback: GitHub sends the visitor there with redirect_uri_mismatch.
    const moved = await rig({ private: true, permissions: { alice: "read" } });
    moved.github.oauth.signIn("alice");
    const misregistered = await rig({
      private: true,
      oauth: { clientId: CLIENT.id, clientSecret: CLIENT.secret, callbackUrls: [`${moved.base}/auth/github/callback`] },
    });
    misregistered.github.oauth.signIn("alice");
    const mismatch = await browse(`${misregistered.base}/jobs/1`);
    expect(new URL(mismatch.went.at(-1)!).searchParams.get("error")).toBe("redirect_uri_mismatch");
    expect(mismatch.response.status).toBe(400);
  });
});
