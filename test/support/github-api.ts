import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import nock from "nock";
import { gitEnv } from "./git-server.js";
import { answerGraphql, gitMutations, Refused } from "./github-graphql.js";
import { duplicatePull, missingHead, nonCollaboratorPermission } from "./github-spec/github-rules.js";
import { oauthWebFlow, type FakeOAuthClient, type OAuthWebFlow } from "./github-spec/oauth-web-flow.js";
import { compileRoute, findRoute, type RouteMatcher } from "./github-spec/route-template.js";
import { fakeFailed, finishAnswer, screenRequest, unrouted, type Reply, type Spec } from "./github-spec/screen-exchange.js";

/** The fake issue; tests may change its state, labels and text between deliveries, as people would. */
export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  state?: "open" | "closed";
  /** Label names (default: `magis`). */
  labels?: string[];
}

/** A comment on the fake issue, as the API shows it. */
export interface FakeComment {
  id: number;
  /** The issue or pull request it is on. */
  issue: number;
  body: string;
  user: { login: string; type: "User" | "Bot" };
  /** GitHub's author_association of the commenter (default NONE). */
  association?: string;
  /** Every body it had, oldest first (creation, then each edit). */
  history: string[];
  /** When it was written and last edited (ISO 8601; default: when the fake was made). */
  created_at?: string;
  updated_at?: string;
}

/** Options of the fake GitHub REST API. */
export interface FakeGitHubOptions {
  owner: string;
  repo: string;
  installationId: number;
  /** The installation token the token endpoint hands out. */
  token: string;
  /** Directory of the bare repositories served by the git server (branches and comparisons come from the real git). */
  gitRoot: string;
  /** The repository's clone_url as the API reports it (point it at the local git server). */
  cloneUrl: string;
  defaultBranch?: string;
  /** A private repository (default: public). */
  private?: boolean;
  /** The repository's size in KB, as the API reports it. */
  sizeKb?: number;
  /** Permission (role) per login; GitHub answers `read` for anyone else on a public repository, 404 on a private one. */
  permissions?: Record<string, "admin" | "maintain" | "write" | "triage" | "read">;
  /** The text of `.github/magis.yml`, or absent for none (404, and 404 for the owner's `.github` repository too). */
  config?: string;
  issue: FakeIssue;
  /** More issues of the same repository, served beside `issue` (several issues' runs at once). */
  moreIssues?: FakeIssue[];
  /** Comments already on the issue (or on the issue or pull request `issue`). */
  comments?: { body: string; user: { login: string; type: "User" | "Bot" }; issue?: number; association?: string; created_at?: string; updated_at?: string }[];
  /** Pull requests that exist already (e.g. the bot's, from an earlier run); `user` defaults to the app's bot. */
  pulls?: { number: number; head: string; base?: string; title: string; body: string; user?: string; state?: "open" | "closed" }[];
  /** Reviews of pull requests, oldest first, as the API lists them (state in capitals: COMMENTED, CHANGES_REQUESTED, APPROVED). */
  reviews?: { id: number; pull: number; state: string; body: string; user: { login: string; type: "User" | "Bot" } }[];
  /** Inline review comments, as the API returns them (`pull_request_review_id` ties each to its review). */
  reviewComments?: FakeReviewComment[];
  /** The app's slug and its bot user's id. */
  bot?: { slug: string; userId: number };
  /** Check runs of commits (for CI that failed on a pull request), as the Checks API lists them. */
  checkRuns?: FakeCheckRun[];
  /** Requests answered with an error status instead, the first `times` that match (GitHub having a bad moment). */
  faults?: { method: string; path: RegExp; status: number; times: number; message?: string; headers?: Record<string, string> }[];
  /**
   * Branch rules (rulesets, protection) the fake enforces when updateRefs or createCommitOnBranch changes a branch: one whose name matches
   * `branch` is refused with this GraphQL error.
   */
  rules?: { branch: RegExp; type: string; message: string }[];
  /**
   * Whom the fake records as the committer of a commit the app makes through the API without author or committer:
   * the app, as the author (default), or GitHub itself (`GitHub <noreply@github.com>`, the `web-flow` account).
   */
  apiCommitter?: "app" | "web-flow";
  /** The App's OAuth client, for the sign-in's web flow (GET /login/oauth/authorize, POST /login/oauth/access_token); without it the fake knows no client. */
  oauth?: FakeOAuthClient;
}

/** An inline review comment as the API shows it (the fields the app reads, plus whatever else a test sets). */
export interface FakeReviewComment {
  id: number;
  pull_request_review_id: number;
  path: string;
  line?: number | null;
  start_line?: number | null;
  side?: "LEFT" | "RIGHT";
  subject_type?: "line" | "file";
  body: string;
  diff_hunk: string;
  in_reply_to_id?: number;
  user: { login: string; type: "User" | "Bot" };
  [field: string]: unknown;
}

/** A check run on a commit: what CI reported, with its annotations; a GitHub Actions job's log is at `logUrl`. */
export interface FakeCheckRun {
  id: number;
  headSha: string;
  name: string;
  conclusion: "success" | "failure" | "timed_out" | "neutral" | "cancelled" | "skipped";
  title?: string;
  summary?: string;
  annotations?: { path: string; start_line: number; annotation_level: "notice" | "warning" | "failure"; message: string }[];
  /** Where `GET /actions/jobs/{id}/logs` redirects to (an Actions job); absent for another CI app's check. */
  logUrl?: string;
  /** The log the fake itself serves at `/_logs/{id}`, as a download host would (point `logUrl` there). */
  log?: string;
}

/** A pull request as the fake keeps it. */
export interface FakePull {
  number: number;
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
  html_url: string;
  user: string;
  state: "open" | "closed";
  /** The head's commit when last seen. */
  lastHead?: string;
}

/** A fake of the GitHub REST API (nock on api.github.com) that keeps the state a run changes and records every request. */
export interface FakeGitHub {
  /** Every request routed, in arrival order; `at` is when it arrived (ms since the epoch). */
  requests: { method: string; path: string; body: unknown; at: number }[];
  /** The issue as the API shows it now. */
  issue: FakeIssue;
  /** The other issues (FakeGitHubOptions.moreIssues) as the API shows them now. */
  moreIssues: FakeIssue[];
  comments: FakeComment[];
  pulls: FakePull[];
  /** Inline review comments; tests may add more between deliveries. */
  reviewComments: FakeReviewComment[];
  /** Replies posted in review comment threads. */
  replies: { pull: number; inReplyTo: number; body: string }[];
  reactions: { target: string; content: string }[];
  botLogin: string;
  botEmail: string;
  /** The repository's GraphQL node id (its `node_id`). */
  repositoryId: string;
  /** The branch rules the GraphQL mutations enforce (see FakeGitHubOptions.rules); tests may add some between runs. */
  rules: NonNullable<FakeGitHubOptions["rules"]>;
  /** The OAuth web flow's side: `signIn(login)` chooses who is signed in at the fake when a sign-in reaches it. */
  oauth: Pick<OAuthWebFlow, "signIn" | "idOf" | "expireCodes">;
  /** Requests whose method and path match. */
  find(method: string, pathPattern: RegExp): FakeGitHub["requests"];
  /** Holds every answer (each request is recorded, then waits) until the returned function is called: GitHub hanging. */
  hold(): () => void;
  /** Removes the interceptors (or stops the server). */
  close(): Promise<void>;
}

const API = "https://api.github.com";
/** GitHub's web side, where the OAuth web flow's endpoints are (on a GitHub Enterprise Server: the same host as its API). */
const WEB = "https://github.com";
/** Whom github.com records as the committer of the commits it signs. */
const WEB_FLOW = { name: "GitHub", email: "noreply@github.com" };

interface Route extends RouteMatcher {
  /** What requests and answers are held to: GitHub's REST description, its GraphQL schema, or nothing (a log download host). */
  spec: Spec;
  reply: (uri: string, body: any, headers: Record<string, string | string[] | undefined>) => Reply;
}
/** Answers one request: its method, its path as sent (encoded, with its query), its body and headers. */
type Answer = (method: string, rawUri: string, body: unknown, headers: Record<string, string | string[] | undefined>) => Promise<Reply>;

/** Starts intercepting api.github.com (nock) with a stateful fake of the endpoints the app uses. */
export function fakeGitHub(options: FakeGitHubOptions): FakeGitHub {
  const { state, answer } = buildFake(options);
  const scope = nock(API).persist();
  // Every request to api.github.com reaches the fake, which routes it by GitHub's own path templates.
  for (const method of ["GET", "POST", "PATCH", "PUT", "DELETE"])
    scope
      .intercept(() => true, method)
      .reply(function (uri, body) {
        return answer(method, uri, body === "" ? undefined : body, this.req.headers) as Promise<[number, nock.Body]>;
      });
  // The OAuth web flow is on github.com itself, not on the API's host.
  const web = nock(WEB).persist();
  for (const method of ["GET", "POST"])
    web
      .intercept((uri) => uri.startsWith("/login/oauth/"), method)
      .reply(function (uri, body) {
        return answer(method, uri, body === "" ? undefined : body, this.req.headers) as Promise<[number, nock.Body]>;
      });
  state.close = async () => void nock.cleanAll();
  return state;
}

/**
 * The same fake as a real HTTP server on 127.0.0.1, for a process the test starts (an Action step, `magis serve`),
 * which nock cannot reach: its base URL is `url`. It answers under the paths of GitHub Enterprise Server as well
 * (`/api/v3/…` and `/api/graphql`), where Probot sends its requests when GHE_HOST names it. A request no route answers
 * gets a 404 and is listed in `unmatched`.
 */
export async function serveFakeGitHub(options: FakeGitHubOptions): Promise<FakeGitHub & { url: string; unmatched: string[] }> {
  const { state, answer, unmatched } = buildFake(options);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      void answer(req.method ?? "GET", asDotCom(req.url ?? "/"), text ? parseBody(text) : undefined, req.headers).then(([status, body, headers]) => {
        const raw = typeof body === "string";
        res.writeHead(status, { "content-type": raw ? "text/plain" : "application/json", ...headers }).end(raw ? body : JSON.stringify(body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, unmatched });
}

/** A request body as JSON, or its text when it is not JSON (as nock hands it over): the fake answers that with a 400. */
function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A GitHub Enterprise Server path as the same request's path on api.github.com. */
function asDotCom(uri: string): string {
  if (uri.startsWith("/api/v3/")) return uri.slice("/api/v3".length);
  return uri.replace(/^\/api\/graphql(?=$|\?)/, "/graphql");
}

/**
 * The operations of GitHub's REST API the fake serves (`METHOD /path/{param}`), as openapi-extract.json must list them.
 * The OAuth web flow's routes (spec `oauth`) are left out on purpose: they are GitHub's web side, not its REST API,
 * and GitHub's OpenAPI description has none of them; oauth-web-flow.ts holds them to GitHub's documentation instead.
 */
export function servedOperations(): string[] {
  const { routes } = buildFake({ owner: "o", repo: "r", installationId: 1, token: "", gitRoot: "", cloneUrl: "", issue: { number: 1, title: "", body: "" } });
  return routes.filter((route) => route.spec === "rest").map((route) => route.key);
}

function buildFake(options: FakeGitHubOptions): { state: FakeGitHub; routes: Route[]; answer: Answer; unmatched: string[] } {
  const { owner, repo } = options;
  const base = `/repos/${owner}/${repo}`;
  const defaultBranch = options.defaultBranch ?? "main";
  const bot = options.bot ?? { slug: "magis-bot", userId: 4242 };
  const botLogin = `${bot.slug}[bot]`;
  const botEmail = `${bot.userId}+${botLogin}@users.noreply.github.com`;
  const bare = path.join(options.gitRoot, `${owner}/${repo}.git`);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: bare, env: gitEnv(), encoding: "utf8", stdio: "pipe" }).trim();
  /** The real git with bytes on its standard input and more environment (an index file, an author). */
  const gitWith = (input: string | Buffer, env: NodeJS.ProcessEnv, ...args: string[]) =>
    execFileSync("git", args, { cwd: bare, env: { ...gitEnv(), ...env }, input, encoding: "utf8", stdio: "pipe" }).trim();
  const headOf = (branch: string): string | undefined => {
    try {
      return git("rev-parse", "--verify", `refs/heads/${branch}`);
    } catch {
      return undefined;
    }
  };
  const nodeId = `R_fake_${Buffer.from(`${owner}/${repo}`).toString("base64url")}`;
  const oauth = oauthWebFlow(options.oauth);
  let nextId = 1000;
  let gate = Promise.resolve();
  const faults = (options.faults ?? []).map((f) => ({ ...f }));
  const state: FakeGitHub = {
    requests: [],
    issue: { ...options.issue },
    moreIssues: (options.moreIssues ?? []).map((issue) => ({ ...issue })),
    comments: (options.comments ?? []).map((c) => ({ ...c, id: nextId++, issue: c.issue ?? options.issue.number, history: [c.body] })),
    pulls: (options.pulls ?? []).map((p) => ({
      number: p.number,
      head: p.head,
      base: p.base ?? defaultBranch,
      title: p.title,
      body: p.body,
      draft: false,
      html_url: `https://github.com/${owner}/${repo}/pull/${p.number}`,
      user: p.user ?? botLogin,
      state: p.state ?? "open",
      // GitHub keeps a pull request's head commit when its branch is deleted later.
      lastHead: headOf(p.head),
    })),
    reviewComments: options.reviewComments ?? [],
    replies: [],
    reactions: [],
    botLogin,
    botEmail,
    repositoryId: nodeId,
    rules: [...(options.rules ?? [])],
    oauth,
    find: (method, pattern) => state.requests.filter((r) => r.method === method && pattern.test(r.path)),
    hold: () => {
      let release!: () => void;
      gate = new Promise<void>((resolve) => (release = resolve));
      return () => {
        gate = Promise.resolve();
        release();
      };
    },
    close: async () => {},
  };
  const user = (login: string) => ({ login, id: login === botLogin ? bot.userId : 1, type: login === botLogin ? "Bot" : "User" });
  const loginFor = (email: string) => (email === botEmail ? botLogin : email === WEB_FLOW.email ? "web-flow" : email.split("@")[0]!);
  /** The commits GitHub signed: those the app made through the API without an author or committer. */
  const signed = new Set<string>();
  const verification = (sha: string) =>
    signed.has(sha)
      ? { verified: true, reason: "valid", signature: "-----BEGIN PGP SIGNATURE-----", payload: "" }
      : { verified: false, reason: "unsigned", signature: null, payload: null };
  const made = new Date().toISOString();
  const commentJson = (c: FakeComment) => ({
    id: c.id,
    body: c.body,
    user: user(c.user.login),
    author_association: c.association ?? "NONE",
    html_url: `https://github.com/${owner}/${repo}/issues/${c.issue}#issuecomment-${c.id}`,
    created_at: c.created_at ?? made,
    updated_at: c.updated_at ?? c.created_at ?? made,
  });
  const pullJson = (p: FakePull) => ({
    ...p,
    node_id: pullNodeId(p.number),
    body: p.body || null,
    user: user(p.user),
    // A deleted head branch leaves the pull request pointing at its last commit, as GitHub shows it.
    head: { ref: p.head, sha: (p.lastHead = headOf(p.head) ?? p.lastHead), repo: { full_name: `${owner}/${repo}` } },
    base: { ref: p.base, repo: { full_name: `${owner}/${repo}` } },
  });
  const pullNumber = (uri: string) => Number(/\/pulls\/(\d+)/.exec(uri)![1]);

  const routes: Route[] = [];
  const on = (key: string, reply: Route["reply"], spec: Spec = "rest") => void routes.push({ ...compileRoute(key), spec, reply });
  const unmatched: string[] = [];
  // The fake never leaves a request hanging: whatever fails in it is a 500 (and a failed test).
  const answer: Answer = (method, rawUri, body, headers) =>
    routeRequest(method, rawUri, body, headers).catch((error: unknown) => fakeFailed(`${method} ${rawUri}`, error));
  const routeRequest: Answer = async (method, rawUri, body, headers) => {
    const decoded = decodeURIComponent(rawUri);
    state.requests.push({ method, path: decoded, body, at: Date.now() });
    await gate;
    const found = findRoute(routes, method, rawUri);
    if (!found) {
      unmatched.push(`${method} ${decoded}`);
      return unrouted(method, decoded);
    }
    const { route, params } = found;
    const request = { key: route.key, params, rawUri, body, headers };
    const refusal = screenRequest(route.spec, request);
    if (refusal) return refusal;
    const fault = faults.find((f) => f.method === method && f.times > 0 && f.path.test(decoded));
    if (fault) {
      fault.times--;
      return [fault.status, { message: fault.message ?? `scripted ${fault.status}` }, fault.headers ?? {}];
    }
    // Another repository than the fake's (the owner's `.github` one, say) is one the installation cannot see.
    if (params.owner !== undefined && `${params.owner}/${params.repo}`.toLowerCase() !== `${owner}/${repo}`.toLowerCase())
      return finishAnswer(route.spec, request, [404, { message: "Not Found" }]);
    return finishAnswer(route.spec, request, route.reply(decoded, body, headers));
  };

  on("POST /app/installations/{installation_id}/access_tokens", () => [
    201,
    {
      token: options.token,
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
      permissions: { contents: "write", issues: "write", pull_requests: "write" },
      repository_selection: "all",
    },
  ]);
  on("GET /app", () => [200, { id: 1, slug: bot.slug, name: "MAGIS", owner: user(owner) }]);
  // The OAuth web flow (oauth-web-flow.ts), and the signed-in user as their user access token shows them.
  on("GET /login/oauth/authorize", (uri) => oauth.authorize(uri), "oauth");
  on("POST /login/oauth/access_token", (uri, body, headers) => oauth.accessToken(uri, body, headers), "oauth");
  on("GET /user", (_uri, _body, headers) => {
    const login = oauth.userOf(headers);
    if (login) return [200, { login, id: oauth.idOf(login), type: "User", site_admin: false }];
    // An installation's token is not a user's: GitHub refuses it here; no token at all needs authentication.
    return headers.authorization ? [403, { message: "Resource not accessible by integration" }] : [401, { message: "Requires authentication" }];
  });
  on("GET /repos/{owner}/{repo}/contents/{path}", (uri) =>
    options.config !== undefined && uri.split("?")[0] === `${base}/contents/.github/magis.yml` ? [200, options.config] : [404, { message: "Not Found" }],
  );
  on("GET /repos/{owner}/{repo}/collaborators/{username}/permission", (uri) => {
    const login = uri.split("/").at(-2)!;
    const role = options.permissions?.[login];
    if (!role) return nonCollaboratorPermission(options.private ?? false, login, user(login));
    const permission = role === "maintain" ? "write" : role === "triage" ? "read" : role;
    return [200, { permission, role_name: role, user: user(login) }];
  });
  on("GET /repos/{owner}/{repo}", () => [
    200,
    {
      id: 1,
      node_id: nodeId,
      name: repo,
      full_name: `${owner}/${repo}`,
      owner: user(owner),
      default_branch: defaultBranch,
      size: options.sizeKb ?? 100,
      clone_url: options.cloneUrl,
      private: options.private ?? false,
    },
  ]);
  on("GET /repos/{owner}/{repo}/issues/{issue_number}", (uri) => {
    const issue = [state.issue, ...state.moreIssues].find((i) => i.number === Number(uri.split("/").pop()));
    if (!issue) return [404, { message: "Not Found" }];
    return [
      200,
      {
        number: issue.number,
        title: issue.title,
        // GitHub sends null, not "", for an issue or pull request without a description (its schemas' `body` is nullable).
        body: issue.body || null,
        state: issue.state ?? "open",
        user: user("Codertocat"),
        labels: (issue.labels ?? ["magis"]).map((name) => ({ name })),
      },
    ];
  });
  const issueNumber = (uri: string) => Number(/\/issues\/(\d+)/.exec(uri)![1]);
  on("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", (uri) => [200, state.comments.filter((c) => c.issue === issueNumber(uri)).map(commentJson)]);
  on("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", (uri, body: { body: string }) => {
    const comment: FakeComment = { id: nextId++, issue: issueNumber(uri), body: body.body, user: { login: botLogin, type: "Bot" }, history: [body.body] };
    state.comments.push(comment);
    return [201, commentJson(comment)];
  });
  on("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", (uri, body: { body: string }) => {
    const comment = state.comments.find((c) => c.id === Number(uri.split("/").pop()));
    if (!comment) return [404, { message: "Not Found" }];
    comment.body = body.body;
    comment.history.push(body.body);
    return [200, commentJson(comment)];
  });
  const react: Route["reply"] = (uri, body: { content: string }) => {
    state.reactions.push({ target: uri.slice(base.length + 1, -"/reactions".length), content: body.content });
    return [201, { id: nextId++, content: body.content }];
  };
  on("POST /repos/{owner}/{repo}/issues/{issue_number}/reactions", react);
  on("POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", react);
  on("GET /repos/{owner}/{repo}/branches/{branch}", (uri) => {
    const branch = uri.slice(`${base}/branches/`.length);
    try {
      return [200, { name: branch, commit: { sha: git("rev-parse", "--verify", `refs/heads/${branch}`) } }];
    } catch {
      return [404, { message: "Branch not found" }];
    }
  });
  on("GET /repos/{owner}/{repo}/compare/{basehead}", (uri) => {
    const [from, to] = uri.slice(`${base}/compare/`.length).split("?")[0]!.split("...");
    // Each commit as id, addresses and message, ended by a NUL.
    const records = git("log", "-z", "--format=%H%n%ae%n%ce%n%B", `${from}..${to}`).split("\0").filter(Boolean);
    const commits = records.map((record) => {
      const [sha, author, committer, ...message] = record.split("\n");
      const text = message.join("\n").trimEnd();
      return { sha, author: user(loginFor(author!)), committer: user(loginFor(committer!)), commit: { message: text, verification: verification(sha!) } };
    });
    return [200, { total_commits: commits.length, commits }];
  });
  on("GET /repos/{owner}/{repo}/pulls", (uri) => {
    const head = new URLSearchParams(uri.split("?")[1] ?? "").get("head");
    const branch = head?.split(":")[1];
    return [200, state.pulls.filter((p) => (branch === undefined || p.head === branch) && p.state === "open").map(pullJson)];
  });
  /** Opens a pull request as the bot, through REST or GraphQL. */
  const openPull = (head: string, fields: Pick<FakePull, "base" | "title" | "body" | "draft">): FakePull => {
    const number = 100 + state.pulls.length;
    const pull: FakePull = { number, head, ...fields, html_url: `https://github.com/${owner}/${repo}/pull/${number}`, user: botLogin, state: "open" };
    state.pulls.push(pull);
    return pull;
  };
  on("POST /repos/{owner}/{repo}/pulls", (_uri, body: { head: string; base: string; title: string; body: string; draft?: boolean }) => {
    const head = body.head.replace(`${owner}:`, "");
    if (!headOf(head)) return missingHead();
    if (state.pulls.some((p) => p.state === "open" && p.head === head && p.base === body.base)) return duplicatePull(owner, head);
    return [201, pullJson(openPull(head, { base: body.base, title: body.title, body: body.body, draft: body.draft ?? false }))];
  });
  on("PATCH /repos/{owner}/{repo}/pulls/{pull_number}", (uri, body: { title?: string; body?: string }) => {
    const pull = state.pulls.find((p) => p.number === Number(uri.split("/").pop()));
    if (!pull) return [404, { message: "Not Found" }];
    Object.assign(pull, body);
    return [200, pullJson(pull)];
  });
  on("GET /repos/{owner}/{repo}/pulls/{pull_number}", (uri) => {
    const pull = state.pulls.find((p) => p.number === pullNumber(uri));
    return pull ? [200, pullJson(pull)] : [404, { message: "Not Found" }];
  });
  // The files of a pull request, from the real git: what the head branch changes since it left the base.
  on("GET /repos/{owner}/{repo}/pulls/{pull_number}/files", (uri) => {
    const pull = state.pulls.find((p) => p.number === pullNumber(uri));
    if (!pull) return [404, { message: "Not Found" }];
    const range = `${pull.base}...${pull.head}`;
    const files = git("diff", "--name-status", range)
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [code, filename] = line.split("\t") as [string, string];
        const diff = git("diff", range, "--", filename);
        const patch = diff.slice(Math.max(0, diff.indexOf("@@")));
        return { filename, status: code === "A" ? "added" : code === "D" ? "removed" : "modified", patch };
      });
    return [200, files];
  });
  on("GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews", (uri) => [200, (options.reviews ?? []).filter((r) => r.pull === pullNumber(uri))]);
  on("GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments", (uri) => {
    const review = Number(/\/reviews\/(\d+)/.exec(uri)![1]);
    return [200, state.reviewComments.filter((c) => c.pull_request_review_id === review)];
  });
  // A reply: a review comment `in_reply_to` a thread's first comment (GitHub takes body, commit_id and path, and
  // ignores all but body then). Only replies are made here: a new thread would need a line of the diff.
  on("POST /repos/{owner}/{repo}/pulls/{pull_number}/comments", (uri, body: { body: string; in_reply_to?: number; commit_id?: string; path?: string }) => {
    const inReplyTo = body.in_reply_to;
    if (inReplyTo === undefined || !body.commit_id || !body.path) return [422, { message: "Validation Failed" }];
    const root = state.reviewComments.find((c) => c.id === inReplyTo);
    if (!root || root.in_reply_to_id !== undefined) return [404, { message: "Not Found" }];
    state.replies.push({ pull: pullNumber(uri), inReplyTo, body: body.body });
    return [201, { id: nextId++, body: body.body, in_reply_to_id: inReplyTo, path: root.path, commit_id: root.commit_id, user: user(botLogin) }];
  });
  on("POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions", react);
  // A commit as the API shows it: its message, and the account its author's address belongs to.
  on("GET /repos/{owner}/{repo}/commits/{ref}", (uri) => {
    const sha = uri.split("/").pop()!;
    const [email, name] = git("log", "-1", "--format=%ae%n%an", sha).split("\n");
    const message = git("log", "-1", "--format=%B", sha);
    return [200, { sha, commit: { message, author: { name, email }, verification: verification(sha) }, author: user(loginFor(email!)) }];
  });
  const checkRunJson = (r: FakeCheckRun) => ({
    id: r.id,
    head_sha: r.headSha,
    name: r.name,
    status: "completed",
    conclusion: r.conclusion,
    html_url: `https://github.com/${owner}/${repo}/runs/${r.id}`,
    app: { slug: r.logUrl ? "github-actions" : "some-ci", name: r.logUrl ? "GitHub Actions" : "Some CI" },
    output: { title: r.title ?? null, summary: r.summary ?? null, annotations_count: r.annotations?.length ?? 0 },
  });
  on("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", (uri) => {
    const sha = /\/commits\/([0-9a-f]{40})\//.exec(uri)![1];
    const runs = (options.checkRuns ?? []).filter((r) => r.headSha === sha).map(checkRunJson);
    return [200, { total_count: runs.length, check_runs: runs }];
  });
  on("GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations", (uri) => {
    const id = Number(/\/check-runs\/(\d+)\//.exec(uri)![1]);
    return [200, (options.checkRuns ?? []).find((r) => r.id === id)?.annotations ?? []];
  });
  // A download host for job logs; the request is recorded like the others, so a test sees it carried no token.
  on(
    "GET /_logs/{id}",
    (uri) => {
      const run = (options.checkRuns ?? []).find((r) => r.id === Number(/^\/_logs\/(\d+)/.exec(uri)![1]));
      return run?.log !== undefined ? [200, run.log] : [404, "no such log"];
    },
    "none",
  );
  // A job's log is a redirect to a signed download address elsewhere, as GitHub answers it.
  on("GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs", (uri) => {
    const run = (options.checkRuns ?? []).find((r) => r.id === Number(uri.split("/").at(-2)));
    return run?.logUrl ? [302, "", { location: run.logUrl }] : [404, { message: "Not Found" }];
  });
  // The Git Data API, for real on the bare repository: the objects land in it as GitHub would store them.
  on("POST /repos/{owner}/{repo}/git/blobs", (_uri, body: { content: string; encoding?: "base64" | "utf-8" }) => {
    const bytes = Buffer.from(body.content, body.encoding === "base64" ? "base64" : "utf8");
    const sha = gitWith(bytes, {}, "hash-object", "-w", "--stdin");
    return [201, { sha, url: `${API}${base}/git/blobs/${sha}` }];
  });
  on(
    "POST /repos/{owner}/{repo}/git/trees",
    (_uri, body: { base_tree?: string; tree: { path: string; mode: string; type: string; sha?: string; content?: string }[] }) => {
      const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "magis-fake-tree-"));
      try {
        const index = { GIT_INDEX_FILE: path.join(scratch, "index") };
        if (body.base_tree) gitWith("", index, "read-tree", body.base_tree);
        for (const entry of body.tree) {
          // An entry's `content` is written out as a UTF-8 blob, as GitHub does.
          const sha = entry.content !== undefined ? gitWith(Buffer.from(entry.content, "utf8"), {}, "hash-object", "-w", "--stdin") : entry.sha;
          gitWith("", index, "update-index", "--add", "--cacheinfo", `${entry.mode},${sha},${entry.path}`);
        }
        const sha = gitWith("", index, "write-tree");
        return [201, { sha, url: `${API}${base}/git/trees/${sha}`, tree: body.tree, truncated: false }];
      } catch (error) {
        return [422, { message: `GitRPC::BadObjectState: ${(error as { stderr?: string }).stderr ?? String(error)}` }];
      } finally {
        fs.rmSync(scratch, { recursive: true, force: true });
      }
    },
  );
  on(
    "POST /repos/{owner}/{repo}/git/commits",
    (
      _uri,
      body: { message: string; tree: string; parents: string[]; author?: { name: string; email: string }; committer?: { name: string; email: string } },
    ) => {
      // Without an author or committer GitHub records the app as the author and signs the commit; with either it does not sign.
      const author = body.author ?? { name: botLogin, email: botEmail };
      const isSigned = !body.author && !body.committer;
      const committer = body.committer ?? (isSigned && options.apiCommitter === "web-flow" ? WEB_FLOW : author);
      const env = { GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email, GIT_COMMITTER_NAME: committer.name, GIT_COMMITTER_EMAIL: committer.email };
      const sha = gitWith(body.message, env, "commit-tree", body.tree, ...body.parents.flatMap((parent) => ["-p", parent]));
      if (isSigned) signed.add(sha);
      return [
        201,
        {
          sha,
          message: body.message,
          tree: { sha: body.tree },
          parents: body.parents.map((parent) => ({ sha: parent })),
          author,
          committer,
          verification: verification(sha),
        },
      ];
    },
  );
  // GraphQL: the mutations of github-graphql.ts, run by graphql-js on the served schema as GitHub runs a document.
  const mutations = gitMutations({
    owner,
    repo,
    nodeId,
    rules: () => state.rules,
    git,
    gitWith,
    headOf,
    author: { name: botLogin, email: botEmail },
    committer: WEB_FLOW,
    sign: (sha) => signed.add(sha),
  });
  type PullInput = { repositoryId: string; baseRefName: string; headRefName: string; title: string; body?: string | null; draft?: boolean | null };
  const createPullRequest = ({ input }: { input: PullInput }) => {
    if (input.repositoryId !== nodeId) throw new Refused("NOT_FOUND", `Could not resolve to a node with the global id of '${input.repositoryId}'`);
    // A refusal scripted for REST's POST …/pulls refuses this too: GitHub refuses both alike (a workflow's token, say).
    const fault = faults.find((f) => f.method === "POST" && f.times > 0 && f.path.test(`${base}/pulls`));
    if (fault) {
      fault.times--;
      throw new Refused("FORBIDDEN", fault.message ?? `scripted ${fault.status}`);
    }
    const head = headOf(input.headRefName);
    if (!head) throw new Refused("UNPROCESSABLE", `Head sha can't be blank, Base sha can't be blank, Head ref must be a branch`);
    if (git("rev-list", "--count", `${input.baseRefName}..${head}`) === "0") {
      throw new Refused("UNPROCESSABLE", `No commits between ${input.baseRefName} and ${input.headRefName}`);
    }
    if (state.pulls.some((p) => p.state === "open" && p.head === input.headRefName && p.base === input.baseRefName)) {
      throw new Refused("UNPROCESSABLE", `A pull request already exists for ${owner}:${input.headRefName}.`);
    }
    const pull = openPull(input.headRefName, { base: input.baseRefName, title: input.title, body: input.body ?? "", draft: input.draft ?? false });
    return { clientMutationId: null, pullRequest: { id: pullNodeId(pull.number), number: pull.number, url: pull.html_url } };
  };
  type PullUpdate = { pullRequestId: string; title?: string | null; body?: string | null };
  const updatePullRequest = ({ input }: { input: PullUpdate }) => {
    const pull = state.pulls.find((p) => pullNodeId(p.number) === input.pullRequestId);
    if (!pull) throw new Refused("NOT_FOUND", `Could not resolve to a node with the global id of '${input.pullRequestId}'`);
    if (input.title != null) pull.title = input.title;
    if (input.body != null) pull.body = input.body;
    return { clientMutationId: null, pullRequest: { id: input.pullRequestId, number: pull.number, url: pull.html_url } };
  };
  on(
    "POST /graphql",
    (_uri, body: { query: string; variables?: Record<string, unknown>; operationName?: string }) =>
      answerGraphql(body, { ...mutations, createPullRequest, updatePullRequest }),
    "graphql",
  );
  return { state, routes, answer, unmatched };
}

/** A pull request's GraphQL node id (its `node_id`), as the fake hands it out. */
function pullNodeId(number: number): string {
  return `PR_fake${number}`;
}
