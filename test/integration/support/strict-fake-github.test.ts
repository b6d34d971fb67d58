import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ProbotOctokit } from "probot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOctokitClass } from "../../../src/github/client/create-octokit-class.js";
import { examplePayload } from "../../e2e/payloads.js";
import { createBareRepository } from "../../support/git-server.js";
import { serveFakeGitHub, servedOperations, type FakeGitHubOptions } from "../../support/github-api.js";
import { BODY_LIMIT, secondaryRateLimit, USER_TOKEN_OPERATIONS } from "../../support/github-spec/github-rules.js";
import { schema as graphqlSchema, SERVED_MUTATIONS } from "../../support/github-spec/graphql-spec.js";
import { extractSource, operations } from "../../support/github-spec/rest-spec.js";
import { takeViolations } from "../../support/github-spec/violations.js";
import { assertWebhookPayload } from "../../support/github-spec/webhook-spec.js";

const TOKEN = "ghs_strictFakeToken0123456789abcdefgh";
let root: string;
let github: Awaited<ReturnType<typeof serveFakeGitHub>>;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-strict-"));
  createBareRepository(root, "octo/demo", { "README.md": "Hello\n" });
});

afterEach(async () => {
  await github?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function serve(extra: Partial<FakeGitHubOptions> = {}) {
  github = await serveFakeGitHub({
    owner: "octo",
    repo: "demo",
    installationId: 1,
    token: TOKEN,
    gitRoot: root,
    cloneUrl: "http://127.0.0.1:9/octo/demo.git",
    issue: { number: 5, title: "Typo", body: "" },
    permissions: { maintainer: "write" },
    ...extra,
  });
  return github;
}

/** One request as any client would send it: the status and the JSON (or text) answer. */
async function call(method: string, route: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const text = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  const response = await fetch(`${github.url}${route}`, { method, headers: { "content-type": "application/json" }, body: text });
  const answer = await response.text();
  return { status: response.status, body: answer.startsWith("{") || answer.startsWith("[") ? JSON.parse(answer) : answer, headers: response.headers };
}

describe("the strict fake GitHub's extracts of GitHub's published descriptions", () => {
  it("holds exactly the operations the fake serves, from the pinned package, each one GitHub Apps may call", () => {
    expect(servedOperations().sort()).toEqual(Object.keys(operations()).sort());
    expect(extractSource()).toMatch(/^@octokit\/openapi@23\.0\.2 generated\/api\.github\.com\.json/);
    // GET /user is called with the signed-in user's token, not the installation's (github-rules.ts, USER_TOKEN_OPERATIONS).
    const notForApps = Object.entries(operations()).filter(([, o]) => !o.enabledForGitHubApps);
    expect(notForApps.map(([key]) => key)).toEqual([...USER_TOKEN_OPERATIONS]);
  });

  it("holds exactly the GraphQL mutations the fake answers, from the pinned package", () => {
    expect(Object.keys(graphqlSchema().getMutationType()!.getFields())).toEqual([...SERVED_MUTATIONS]);
    const extract = fs.readFileSync(new URL("../../support/github-spec/graphql-extract.graphql", import.meta.url), "utf8");
    expect(extract).toContain("from @octokit/graphql-schema@15.26.1 (schema.json)");
  });
});

describe("requests GitHub would refuse are refused as GitHub does, and fail the test that sent them", () => {
  it("a route GitHub's description has but the fake does not serve, and a path parameter of the wrong type: 404", async () => {
    await serve();
    expect(await call("GET", "/repos/octo/demo/releases")).toMatchObject({ status: 404, body: { message: "Not Found" } });
    expect(await call("GET", "/repos/octo/demo/issues/five")).toMatchObject({ status: 404, body: { message: "Not Found", status: "404" } });
    expect(github.unmatched).toEqual(["GET /repos/octo/demo/releases"]);
    expect(takeViolations()).toEqual([
      expect.stringMatching(/^GET \/repos\/octo\/demo\/releases: no route of the fake GitHub matches it/),
      "GET /repos/octo/demo/issues/five: path/issue_number must be integer",
    ]);
  });

  it("a body missing a required field, or with a value outside its enum: 422 with GitHub's error shape", async () => {
    await serve();
    const missing = await call("POST", "/repos/octo/demo/issues/5/comments", { text: "hi" });
    expect(missing).toMatchObject({ status: 422, body: { message: "Invalid request.\n\nbody must have required property 'body'", status: "422" } });
    expect(missing.body.documentation_url).toBe("https://docs.github.com/rest/issues/comments#create-an-issue-comment");
    const reaction = await call("POST", "/repos/octo/demo/issues/5/reactions", { content: "thumbsup" });
    expect(reaction.status).toBe(422);
    expect(reaction.body.message).toContain("body/content must be equal to one of the allowed values (+1, -1, laugh, confused, heart, hooray, rocket, eyes)");
    expect(github.comments).toEqual([]);
    expect(takeViolations()).toHaveLength(2);
  });

  it("a query parameter outside its schema is a 422; one the operation does not know is answered (GitHub ignores it) but still fails the test", async () => {
    await serve();
    expect((await call("GET", "/repos/octo/demo/pulls?state=merged")).status).toBe(422);
    expect((await call("GET", "/repos/octo/demo/pulls?per_page=100&sort_by=created")).status).toBe(200);
    expect(takeViolations()).toEqual([
      "GET /repos/octo/demo/pulls?state=merged: query/state must be equal to one of the allowed values (open, closed, all)",
      "GET /repos/octo/demo/pulls?per_page=100&sort_by=created: query parameter 'sort_by' is not one of the operation's (state, head, base, sort, direction, per_page, page)",
    ]);
  });

  it("a body that is not JSON is a 400, answered at once, never left hanging", async () => {
    await serve();
    expect(await call("POST", "/repos/octo/demo/issues/5/comments", '{"body": "cut sho')).toMatchObject({
      status: 400,
      body: { message: "Problems parsing JSON" },
    });
    expect(await call("POST", "/graphql", "mutation {")).toMatchObject({ status: 400, body: { message: "Problems parsing JSON" } });
    expect(takeViolations()).toHaveLength(2);
  });
});

describe("answers are GitHub's, complete to the route's schema", () => {
  it("every field GitHub requires is there, null where GitHub may send null", async () => {
    await serve({ pulls: [{ number: 2, head: "main", base: "main", title: "t", body: "b" }] });
    const issue = await call("GET", "/repos/octo/demo/issues/5");
    expect(issue.status).toBe(200);
    // Fields the fake does not model come as GitHub may send them: null where the schema allows it.
    // An issue without a description has a null body, as on GitHub.
    expect(issue.body).toMatchObject({
      number: 5,
      title: "Typo",
      body: null,
      closed_at: null,
      assignee: null,
      milestone: null,
      user: { login: "Codertocat", gravatar_id: null },
    });
    const repository = await call("GET", "/repos/octo/demo");
    expect(repository.body).toMatchObject({ full_name: "octo/demo", private: false, description: null, homepage: null });
    const pull = await call("GET", "/repos/octo/demo/pulls/2");
    expect(pull.body).toMatchObject({ number: 2, merged_at: null, head: { ref: "main" }, milestone: null });
    expect(pull.body.head.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(takeViolations()).toEqual([]);
  });
});

describe("rules GitHub enforces beyond its published descriptions", () => {
  it(`a comment or pull request body past ${BODY_LIMIT} characters is a 422, counted in characters`, async () => {
    await serve();
    // 65,536 characters of two UTF-16 units each are still 65,536 characters.
    expect((await call("POST", "/repos/octo/demo/issues/5/comments", { body: "🙂".repeat(BODY_LIMIT) })).status).toBe(201);
    const long = await call("POST", "/repos/octo/demo/issues/5/comments", { body: "x".repeat(BODY_LIMIT + 1) });
    expect(long).toMatchObject({
      status: 422,
      body: {
        message: "Validation Failed",
        errors: [{ resource: "IssueComment", code: "custom", field: "body", message: "body is too long (maximum is 65536 characters)" }],
      },
    });
    const pull = await call("POST", "/repos/octo/demo/pulls", { head: "main", base: "main", title: "t", body: "x".repeat(BODY_LIMIT + 1) });
    expect(pull.body.errors).toEqual([{ resource: "Issue", code: "custom", field: "body", message: "body is too long (maximum is 65536 characters)" }]);
    expect(github.comments).toHaveLength(1);
    expect(takeViolations()).toEqual([
      "POST /repos/octo/demo/issues/5/comments: body is longer than GitHub takes",
      "POST /repos/octo/demo/pulls: body is longer than GitHub takes",
    ]);
  });

  it("a second open pull request from the same head, or one from a branch that does not exist: 422", async () => {
    await serve();
    expect((await call("POST", "/repos/octo/demo/pulls", { head: "main", base: "main", title: "t", body: "b" })).status).toBe(201);
    const again = await call("POST", "/repos/octo/demo/pulls", { head: "octo:main", base: "main", title: "t", body: "b" });
    expect(again).toMatchObject({
      status: 422,
      body: { errors: [{ resource: "PullRequest", code: "custom", message: "A pull request already exists for octo:main." }] },
    });
    const missing = await call("POST", "/repos/octo/demo/pulls", { head: "magis/gone", base: "main", title: "t", body: "b" });
    expect(missing).toMatchObject({ status: 422, body: { errors: [{ resource: "PullRequest", field: "head", code: "invalid" }] } });
    expect(github.pulls).toHaveLength(1);
  });

  it("anyone may read a public repository (permission read); on a private one a non-collaborator is a 404", async () => {
    await serve();
    expect((await call("GET", "/repos/octo/demo/collaborators/passerby/permission")).body).toMatchObject({ permission: "read", role_name: "read" });
    expect((await call("GET", "/repos/octo/demo/collaborators/maintainer/permission")).body).toMatchObject({ permission: "write" });
    await github.close();
    await serve({ private: true });
    expect((await call("GET", "/repos/octo/demo/collaborators/passerby/permission")).status).toBe(404);
  });

  it("a secondary rate limit is GitHub's 403 with retry-after, which the app's client waits out once when it is short", async () => {
    await serve({
      faults: [
        secondaryRateLimit("POST", /\/issues\/5\/comments$/, { times: 1, retryAfter: 1 }),
        secondaryRateLimit("PATCH", /\/issues\/comments\//, { times: 3, retryAfter: 600 }),
      ],
    });
    const Octokit = createOctokitClass({ timeoutMs: 5_000 });
    const octokit = new Octokit({ auth: { token: TOKEN }, baseUrl: github.url, retry: { enabled: false } });
    const { data } = await octokit.rest.issues.createComment({ owner: "octo", repo: "demo", issue_number: 5, body: "hi" });
    expect(github.find("POST", /\/issues\/5\/comments$/)).toHaveLength(2);
    // Ten minutes is longer than a job may wait: the call fails now with GitHub's words.
    await expect(octokit.rest.issues.updateComment({ owner: "octo", repo: "demo", comment_id: data.id, body: "edited" })).rejects.toThrow(
      /secondary rate limit/,
    );
    expect(github.find("PATCH", /\/issues\/comments\//)).toHaveLength(1);
  }, 15_000);
});

describe("GraphQL documents are held to GitHub's published schema", () => {
  const UPDATE_REFS = `mutation($repositoryId: ID!, $refUpdates: [RefUpdate!]!) { updateRefs(input: {repositoryId: $repositoryId, refUpdates: $refUpdates}) { clientMutationId } }`;

  it("a field the schema lacks, a ref name not fully qualified, an object id not 40 hex digits: GitHub's errors", async () => {
    await serve();
    const octokit = new ProbotOctokit({ auth: { token: TOKEN }, baseUrl: github.url, retry: { enabled: false }, throttle: { enabled: false } });
    await expect(octokit.graphql(`mutation { updateRefs(input: {repositoryId: "x", refUpdates: []}) { ok } }`)).rejects.toThrow(
      /Cannot query field "ok" on type "UpdateRefsPayload"/,
    );
    const update = { name: "magis/issue-5", afterOid: "abc", beforeOid: "0".repeat(40) };
    await expect(octokit.graphql(UPDATE_REFS, { repositoryId: github.repositoryId, refUpdates: [update] })).rejects.toThrow(
      /"magis\/issue-5" is not a valid GitRefname: it must be a fully qualified reference name/,
    );
    await expect(
      octokit.graphql(UPDATE_REFS, { repositoryId: github.repositoryId, refUpdates: [{ ...update, name: "refs/heads/magis/issue-5" }] }),
    ).rejects.toThrow(/"abc" is not a valid GitObjectID: it must be a Git object ID \(40 hex digits\)/);
    expect(github.find("POST", /^\/graphql$/)).toHaveLength(3);
    expect(takeViolations()).toHaveLength(3);
  });
});

describe("webhook payloads the tests send", () => {
  it("are GitHub's for their event and action, or the test stops with what is wrong", () => {
    const labeled = examplePayload("issues", "labeled");
    expect(() => assertWebhookPayload("issues", labeled)).not.toThrow();
    delete labeled.issue.number;
    expect(() => assertWebhookPayload("issues", labeled)).toThrow(
      "The issues.labeled webhook this test sends is not one GitHub sends (@octokit/webhooks-schemas):\n- payload/issue must have required property 'number'",
    );
    expect(() => assertWebhookPayload("issues", { ...examplePayload("issues", "opened"), action: "archived" })).toThrow(
      "@octokit/webhooks-schemas has no schema for the issues.archived webhook: GitHub sends no such event.",
    );
  });
});
