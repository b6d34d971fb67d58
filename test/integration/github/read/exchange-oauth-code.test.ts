import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ProbotOctokit } from "probot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { githubUrls } from "../../../../src/github/client/github-urls.js";
import { exchangeOAuthCode } from "../../../../src/github/read/exchange-oauth-code.js";
import { readPermission } from "../../../../src/github/read/check-permission.js";
import { isRepositoryPublic } from "../../../../src/github/read/read-repository-visibility.js";
import type { Octokit } from "../../../../src/github/types.js";
import { createBareRepository } from "../../../support/git-server.js";
import { fakeGitHub, type FakeGitHub, type FakeGitHubOptions } from "../../../support/github-api.js";
import { takeViolations } from "../../../support/github-spec/violations.js";

const TOKEN = "ghs_oauthExchangeToken0123456789abcde";
const CALLBACK = "https://magis.example.com/auth/github/callback";
const OAUTH = { clientId: "Iv23liExchange", clientSecret: "exchange-secret-0123456789", callbackUrls: [CALLBACK] };
const CLIENT = { urls: githubUrls({}), clientId: OAUTH.clientId, clientSecret: OAUTH.clientSecret, timeoutMs: 5_000 };
let root: string;
let github: FakeGitHub;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-oauth-"));
  createBareRepository(root, "octo/demo", { "README.md": "Hello\n" });
});
afterEach(async () => {
  await github?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function fake(extra: Partial<FakeGitHubOptions> = {}) {
  github = fakeGitHub({
    owner: "octo",
    repo: "demo",
    installationId: 1,
    token: TOKEN,
    gitRoot: root,
    cloneUrl: "http://127.0.0.1:9/octo/demo.git",
    issue: { number: 5, title: "Typo", body: "" },
    oauth: OAUTH,
    ...extra,
  });
  return github;
}

/** The code GitHub's authorize page hands a signed-in `login` back with, as the browser would follow it. */
async function codeFor(login: string, redirectUri = CALLBACK): Promise<string> {
  github.oauth.signIn(login);
  const query = new URLSearchParams({ client_id: OAUTH.clientId, redirect_uri: redirectUri, state: "s1" });
  const answer = await fetch(`https://github.com/login/oauth/authorize?${query}`, { redirect: "manual" });
  const back = new URL(answer.headers.get("location")!);
  expect(back.searchParams.get("state")).toBe("s1");
  return back.searchParams.get("code")!;
}

const installation = () => new ProbotOctokit({ auth: { token: TOKEN }, retry: { enabled: false }, throttle: { enabled: false } }) as unknown as Octokit;

describe("exchangeOAuthCode", () => {
  it("turns the code into the signed-in user, reading GET /user once with their token, and keeps nothing of it", async () => {
    fake();
    const code = await codeFor("alice");
    expect(await exchangeOAuthCode(CLIENT, code, CALLBACK)).toEqual({ login: "alice", id: github.oauth.idOf("alice") });
    const exchange = github.find("POST", /^\/login\/oauth\/access_token$/);
    expect(exchange.map((r) => r.body)).toEqual([{ client_id: OAUTH.clientId, client_secret: OAUTH.clientSecret, code, redirect_uri: CALLBACK }]);
    expect(github.find("GET", /^\/user$/)).toHaveLength(1);
  });

  it("says GitHub's refusal and what to do: a code used twice, a wrong secret, another redirect_uri", async () => {
    fake();
    const code = await codeFor("alice");
    await exchangeOAuthCode(CLIENT, code, CALLBACK);
    await expect(exchangeOAuthCode(CLIENT, code, CALLBACK)).rejects.toThrow(
      "GitHub refused the sign-in's code (bad_verification_code: The code passed is incorrect or expired.); the code is wrong, used already or older than ten minutes: sign in again",
    );
    await expect(exchangeOAuthCode({ ...CLIENT, clientSecret: "wrong" }, await codeFor("alice"), CALLBACK)).rejects.toThrow(
      /\(incorrect_client_credentials: The client_id and\/or client_secret passed are incorrect\.\); GITHUB_CLIENT_ID or GITHUB_CLIENT_SECRET is not the GitHub App's/,
    );
    await expect(exchangeOAuthCode(CLIENT, await codeFor("alice"), "https://elsewhere.example/cb")).rejects.toThrow(
      "(redirect_uri_mismatch: The redirect_uri MUST match the registered callback URL for this application.); the App's callback URL is not this server's: set it on the App's settings page to https://elsewhere.example/cb",
    );
  });
});

describe("the fake's OAuth web flow, as GitHub documents it", () => {
  it("sends an unregistered redirect_uri's visitor to the registered callback with redirect_uri_mismatch", async () => {
    fake();
    github.oauth.signIn("alice");
    const query = new URLSearchParams({ client_id: OAUTH.clientId, redirect_uri: "https://evil.example/cb", state: "s2" });
    const answer = await fetch(`https://github.com/login/oauth/authorize?${query}`, { redirect: "manual" });
    const back = new URL(answer.headers.get("location")!);
    expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: "redirect_uri_mismatch", state: "s2" });
  });

  it("answers form-encoded without Accept: application/json, and flags a sign-in sent without state", async () => {
    fake();
    github.oauth.signIn("alice");
    const answer = await fetch(`https://github.com/login/oauth/authorize?client_id=${OAUTH.clientId}`, { redirect: "manual" });
    expect(takeViolations()).toEqual([expect.stringContaining("the authorization request carries no state")]);
    const code = new URL(answer.headers.get("location")!).searchParams.get("code")!;
    const grant = await fetch("https://github.com/login/oauth/access_token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: OAUTH.clientId, client_secret: OAUTH.clientSecret, code }).toString(),
    });
    expect(grant.headers.get("content-type")).toMatch(/^application\/x-www-form-urlencoded/);
    const fields = new URLSearchParams(await grant.text());
    expect(fields.get("access_token")).toMatch(/^ghu_/);
    expect(fields.get("token_type")).toBe("bearer");
  });

  it("serves GET /user to a user's token only: an installation's is refused, and fails the test that sent it", async () => {
    fake();
    await expect(installation().rest.users.getAuthenticated()).rejects.toMatchObject({ status: 403 });
    expect(takeViolations()).toEqual(["GET /user: GitHub Apps may not call this operation"]);
  });
});

describe("the readers of a user's access", () => {
  it("read a user's permission through the installation, and whether the repository is public", async () => {
    fake({ private: true, permissions: { alice: "triage", bob: "maintain" } });
    const octokit = installation();
    const repo = { owner: "octo", repo: "demo" };
    expect(await readPermission(octokit, repo, "alice")).toEqual({ permission: "read", roleName: "triage" });
    expect(await readPermission(octokit, repo, "bob")).toEqual({ permission: "write", roleName: "maintain" });
    expect(await readPermission(octokit, repo, "mallory")).toBeNull();
    expect(await isRepositoryPublic(octokit, repo)).toBe(false);
    await github.close();
    fake({ private: false });
    expect(await isRepositoryPublic(installation(), repo)).toBe(true);
  });
});
