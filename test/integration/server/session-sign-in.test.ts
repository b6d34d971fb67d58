import { afterEach, describe, expect, it } from "vitest";
import { browse, CLIENT, closeRigs, rig } from "./sign-in-rig.js";

afterEach(closeRigs);

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
