import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import nock from "nock";
import { gitEnv } from "./git-server.js";

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
  /** The repository's size in KB, as the API reports it. */
  sizeKb?: number;
  /** Permission (role) per login; others are not collaborators (404). */
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
  faults?: { method: string; path: RegExp; status: number; times: number; message?: string }[];
  /**
   * Branch rules (rulesets, protection) the fake enforces when updateRefs moves a branch: one whose name matches
   * `branch` is refused with this GraphQL error.
   */
  rules?: { branch: RegExp; type: string; message: string }[];
  /**
   * Whom the fake records as the committer of a commit the app makes through the API without author or committer:
   * the app, as the author (default), or GitHub itself (`GitHub <noreply@github.com>`, the `web-flow` account).
   */
  apiCommitter?: "app" | "web-flow";
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
  /** The branch rules updateRefs enforces (see FakeGitHubOptions.rules); tests may add some between runs. */
  rules: NonNullable<FakeGitHubOptions["rules"]>;
  /** Requests whose method and path match. */
  find(method: string, pathPattern: RegExp): FakeGitHub["requests"];
  /** Holds every answer (each request is recorded, then waits) until the returned function is called: GitHub hanging. */
  hold(): () => void;
  /** Removes the interceptors (or stops the server). */
  close(): Promise<void>;
}

const API = "https://api.github.com";
/** Whom github.com records as the committer of the commits it signs. */
const WEB_FLOW = { name: "GitHub", email: "noreply@github.com" };

type Method = "get" | "post" | "patch";
interface Route {
  method: Method;
  pattern: RegExp;
  /** The status, the body, and headers beyond the content type (a redirect's location). */
  reply: (uri: string, body: any) => [number, unknown] | [number, unknown, Record<string, string>];
}

/** Starts intercepting api.github.com (nock) with a stateful fake of the endpoints the app uses. */
export function fakeGitHub(options: FakeGitHubOptions): FakeGitHub {
  const { state, routes, answer } = buildFake(options);
  const scope = nock(API).persist();
  for (const route of routes) scope[route.method](route.pattern).reply((uri, body) => answer(route, uri, body) as Promise<[number, nock.Body]>);
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
  const { state, routes, answer } = buildFake(options);
  const unmatched: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const method = (req.method ?? "GET").toLowerCase();
      const uri = asDotCom(req.url ?? "/");
      const route = routes.find((r) => r.method === method && r.pattern.test(uri));
      const text = Buffer.concat(chunks).toString("utf8");
      if (!route) {
        unmatched.push(`${method.toUpperCase()} ${uri}`);
        return void res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ message: "Not Found" }));
      }
      void Promise.resolve(answer(route, uri, text ? JSON.parse(text) : undefined)).then(([status, body, headers]) => {
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

/** A GitHub Enterprise Server path as the same request's path on api.github.com. */
function asDotCom(uri: string): string {
  if (uri.startsWith("/api/v3/")) return uri.slice("/api/v3".length);
  return uri.replace(/^\/api\/graphql(?=$|\?)/, "/graphql");
}

function buildFake(options: FakeGitHubOptions): {
  state: FakeGitHub;
  routes: Route[];
  answer: (route: Route, uri: string, body: unknown) => ReturnType<Route["reply"]> | Promise<ReturnType<Route["reply"]>>;
} {
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
  const nodeId = `R_fake_${Buffer.from(`${owner}/${repo}`).toString("base64url")}`;
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
    })),
    reviewComments: options.reviewComments ?? [],
    replies: [],
    reactions: [],
    botLogin,
    botEmail,
    repositoryId: nodeId,
    rules: [...(options.rules ?? [])],
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
    user: user(p.user),
    // A deleted head branch leaves the pull request pointing at its last commit, as GitHub shows it.
    head: { ref: p.head, sha: (p.lastHead = headOf(p.head) ?? p.lastHead), repo: { full_name: `${owner}/${repo}` } },
    base: { ref: p.base, repo: { full_name: `${owner}/${repo}` } },
  });
  const headOf = (branch: string): string | undefined => {
    try {
      return git("rev-parse", "--verify", `refs/heads/${branch}`);
    } catch {
      return undefined;
    }
  };
  const pullNumber = (uri: string) => Number(/\/pulls\/(\d+)/.exec(uri)![1]);

  const routes: Route[] = [];
  const on = (method: Method, pattern: RegExp, reply: Route["reply"]) => void routes.push({ method, pattern, reply });
  const answer = async (route: Route, uri: string, body: unknown): Promise<[number, unknown] | [number, unknown, Record<string, string>]> => {
    const decoded = decodeURIComponent(uri);
    state.requests.push({ method: route.method.toUpperCase(), path: decoded, body, at: Date.now() });
    await gate;
    const fault = faults.find((f) => f.method === route.method.toUpperCase() && f.times > 0 && f.path.test(decoded));
    if (fault) {
      fault.times--;
      return [fault.status, { message: fault.message ?? `scripted ${fault.status}` }];
    }
    return refuseLongBody(decoded, body) ?? route.reply(decoded, body);
  };

  on("post", /^\/app\/installations\/\d+\/access_tokens$/, () => [
    201,
    {
      token: options.token,
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
      permissions: { contents: "write", issues: "write", pull_requests: "write" },
      repository_selection: "all",
    },
  ]);
  on("get", /^\/app$/, () => [200, { id: 1, slug: bot.slug, name: "MAGIS", owner: user(owner) }]);
  on("get", /\/contents\/\.github\/magis\.yml|\/contents\/\.github%2Fmagis\.yml/, (uri) =>
    options.config !== undefined && uri.startsWith(base + "/") ? [200, options.config] : [404, { message: "Not Found" }],
  );
  on("get", new RegExp(`^${base}/collaborators/[^/]+/permission$`), (uri) => {
    const login = uri.split("/").at(-2)!;
    const role = options.permissions?.[login];
    if (!role) return [404, { message: `${login} is not a collaborator` }];
    const permission = role === "maintain" ? "write" : role === "triage" ? "read" : role;
    return [200, { permission, role_name: role, user: user(login) }];
  });
  on("get", new RegExp(`^${base}$`), () => [
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
      private: false,
    },
  ]);
  on("get", new RegExp(`^${base}/issues/\\d+$`), (uri) => {
    const issue = [state.issue, ...state.moreIssues].find((i) => i.number === Number(uri.split("/").pop()));
    if (!issue) return [404, { message: "Not Found" }];
    return [
      200,
      {
        number: issue.number,
        title: issue.title,
        body: issue.body,
        state: issue.state ?? "open",
        user: user("Codertocat"),
        labels: (issue.labels ?? ["magis"]).map((name) => ({ name })),
      },
    ];
  });
  const issueNumber = (uri: string) => Number(/\/issues\/(\d+)/.exec(uri)![1]);
  on("get", new RegExp(`^${base}/issues/\\d+/comments(\\?.*)?$`), (uri) => [200, state.comments.filter((c) => c.issue === issueNumber(uri)).map(commentJson)]);
  on("post", new RegExp(`^${base}/issues/\\d+/comments$`), (uri, body: { body: string }) => {
    const comment: FakeComment = { id: nextId++, issue: issueNumber(uri), body: body.body, user: { login: botLogin, type: "Bot" }, history: [body.body] };
    state.comments.push(comment);
    return [201, commentJson(comment)];
  });
  on("patch", new RegExp(`^${base}/issues/comments/\\d+$`), (uri, body: { body: string }) => {
    const comment = state.comments.find((c) => c.id === Number(uri.split("/").pop()));
    if (!comment) return [404, { message: "Not Found" }];
    comment.body = body.body;
    comment.history.push(body.body);
    return [200, commentJson(comment)];
  });
  on("post", new RegExp(`^${base}/issues/(\\d+|comments/\\d+)/reactions$`), (uri, body: { content: string }) => {
    state.reactions.push({ target: uri.slice(base.length + 1, -"/reactions".length), content: body.content });
    return [201, { id: nextId++, content: body.content }];
  });
  on("get", new RegExp(`^${base}/branches/.+$`), (uri) => {
    const branch = uri.slice(`${base}/branches/`.length);
    try {
      return [200, { name: branch, commit: { sha: git("rev-parse", "--verify", `refs/heads/${branch}`) } }];
    } catch {
      return [404, { message: "Branch not found" }];
    }
  });
  on("get", new RegExp(`^${base}/compare/.+$`), (uri) => {
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
  on("get", new RegExp(`^${base}/pulls(\\?.*)?$`), (uri) => {
    const head = new URLSearchParams(uri.split("?")[1] ?? "").get("head");
    const branch = head?.split(":")[1];
    return [200, state.pulls.filter((p) => (branch === undefined || p.head === branch) && p.state === "open").map(pullJson)];
  });
  on("post", new RegExp(`^${base}/pulls$`), (_uri, body: { head: string; base: string; title: string; body: string; draft?: boolean }) => {
    const number = 100 + state.pulls.length;
    const pull: FakePull = {
      number,
      head: body.head,
      base: body.base,
      title: body.title,
      body: body.body,
      draft: body.draft ?? false,
      html_url: `https://github.com/${owner}/${repo}/pull/${number}`,
      user: botLogin,
      state: "open",
    };
    state.pulls.push(pull);
    return [201, pullJson(pull)];
  });
  on("patch", new RegExp(`^${base}/pulls/\\d+$`), (uri, body: { title?: string; body?: string }) => {
    const pull = state.pulls.find((p) => p.number === Number(uri.split("/").pop()));
    if (!pull) return [404, { message: "Not Found" }];
    Object.assign(pull, body);
    return [200, pullJson(pull)];
  });
  on("get", new RegExp(`^${base}/pulls/\\d+$`), (uri) => {
    const pull = state.pulls.find((p) => p.number === pullNumber(uri));
    return pull ? [200, pullJson(pull)] : [404, { message: "Not Found" }];
  });
  // The files of a pull request, from the real git: what the head branch changes since it left the base.
  on("get", new RegExp(`^${base}/pulls/\\d+/files(\\?.*)?$`), (uri) => {
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
  on("get", new RegExp(`^${base}/pulls/\\d+/reviews(\\?.*)?$`), (uri) => [200, (options.reviews ?? []).filter((r) => r.pull === pullNumber(uri))]);
  on("get", new RegExp(`^${base}/pulls/\\d+/reviews/\\d+/comments(\\?.*)?$`), (uri) => {
    const review = Number(/\/reviews\/(\d+)/.exec(uri)![1]);
    return [200, state.reviewComments.filter((c) => c.pull_request_review_id === review)];
  });
  // A reply: a review comment `in_reply_to` a thread's first comment (GitHub takes body, commit_id and path, and
  // ignores all but body then). Only replies are made here: a new thread would need a line of the diff.
  on("post", new RegExp(`^${base}/pulls/\\d+/comments$`), (uri, body: { body: string; in_reply_to?: number; commit_id?: string; path?: string }) => {
    const inReplyTo = body.in_reply_to;
    if (inReplyTo === undefined || !body.commit_id || !body.path) return [422, { message: "Validation Failed" }];
    const root = state.reviewComments.find((c) => c.id === inReplyTo);
    if (!root || root.in_reply_to_id !== undefined) return [404, { message: "Not Found" }];
    state.replies.push({ pull: pullNumber(uri), inReplyTo, body: body.body });
    return [201, { id: nextId++, body: body.body, in_reply_to_id: inReplyTo, path: root.path, commit_id: root.commit_id, user: user(botLogin) }];
  });
  on("post", new RegExp(`^${base}/pulls/comments/\\d+/reactions$`), (uri, body: { content: string }) => {
    state.reactions.push({ target: uri.slice(base.length + 1, -"/reactions".length), content: body.content });
    return [201, { id: nextId++, content: body.content }];
  });
  // A commit as the API shows it: its message, and the account its author's address belongs to.
  on("get", new RegExp(`^${base}/commits/[0-9a-f]{40}$`), (uri) => {
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
  on("get", new RegExp(`^${base}/commits/[0-9a-f]{40}/check-runs(\\?.*)?$`), (uri) => {
    const sha = /\/commits\/([0-9a-f]{40})\//.exec(uri)![1];
    const runs = (options.checkRuns ?? []).filter((r) => r.headSha === sha).map(checkRunJson);
    return [200, { total_count: runs.length, check_runs: runs }];
  });
  on("get", new RegExp(`^${base}/check-runs/\\d+/annotations(\\?.*)?$`), (uri) => {
    const id = Number(/\/check-runs\/(\d+)\//.exec(uri)![1]);
    return [200, (options.checkRuns ?? []).find((r) => r.id === id)?.annotations ?? []];
  });
  // A download host for job logs; the request is recorded like the others, so a test sees it carried no token.
  on("get", /^\/_logs\/\d+(\?.*)?$/, (uri) => {
    const run = (options.checkRuns ?? []).find((r) => r.id === Number(/^\/_logs\/(\d+)/.exec(uri)![1]));
    return run?.log !== undefined ? [200, run.log] : [404, "no such log"];
  });
  // A job's log is a redirect to a signed download address elsewhere, as GitHub answers it.
  on("get", new RegExp(`^${base}/actions/jobs/\\d+/logs$`), (uri) => {
    const run = (options.checkRuns ?? []).find((r) => r.id === Number(uri.split("/").at(-2)));
    return run?.logUrl ? [302, "", { location: run.logUrl }] : [404, { message: "Not Found" }];
  });
  // The Git Data API, for real on the bare repository: the objects land in it as GitHub would store them.
  on("post", new RegExp(`^${base}/git/blobs$`), (_uri, body: { content: string; encoding?: "base64" | "utf-8" }) => {
    const bytes = Buffer.from(body.content, body.encoding === "base64" ? "base64" : "utf8");
    const sha = gitWith(bytes, {}, "hash-object", "-w", "--stdin");
    return [201, { sha, url: `${API}${base}/git/blobs/${sha}` }];
  });
  on("post", new RegExp(`^${base}/git/trees$`), (_uri, body: { base_tree?: string; tree: { path: string; mode: string; type: string; sha: string }[] }) => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "magis-fake-tree-"));
    try {
      const index = { GIT_INDEX_FILE: path.join(scratch, "index") };
      if (body.base_tree) gitWith("", index, "read-tree", body.base_tree);
      for (const entry of body.tree) gitWith("", index, "update-index", "--add", "--cacheinfo", `${entry.mode},${entry.sha},${entry.path}`);
      const sha = gitWith("", index, "write-tree");
      return [201, { sha, url: `${API}${base}/git/trees/${sha}`, tree: body.tree, truncated: false }];
    } catch (error) {
      return [422, { message: `GitRPC::BadObjectState: ${(error as { stderr?: string }).stderr ?? String(error)}` }];
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
  on(
    "post",
    new RegExp(`^${base}/git/commits$`),
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
  // GraphQL: only updateRefs, answered as GitHub answers a mutation (HTTP 200, with `errors` when it failed).
  on(
    "post",
    /^\/graphql$/,
    (
      _uri,
      body: { query: string; variables: { repositoryId: string; refUpdates: { name: string; beforeOid: string; afterOid: string; force?: boolean }[] } },
    ) => {
      const refused = (type: string, message: string): [number, unknown] => [
        200,
        { data: { updateRefs: null }, errors: [{ type, path: ["updateRefs"], message }] },
      ];
      if (!/\bupdateRefs\s*\(/.test(body.query)) return [200, { errors: [{ message: "the fake GitHub answers no GraphQL but the updateRefs mutation" }] }];
      const { repositoryId, refUpdates } = body.variables;
      if (repositoryId !== nodeId) return refused("NOT_FOUND", `Could not resolve to a node with the global id of '${repositoryId}'`);
      const zeros = "0".repeat(40);
      for (const update of refUpdates) {
        const rule = state.rules.find((r) => r.branch.test(update.name.replace(/^refs\/heads\//, "")));
        if (rule) return refused(rule.type, rule.message);
        if (!update.force && update.beforeOid !== zeros) {
          try {
            git("merge-base", "--is-ancestor", update.beforeOid, update.afterOid);
          } catch {
            return refused("UNPROCESSABLE", `${update.name} cannot be updated: ${update.afterOid} is not a fast-forward of ${update.beforeOid}`);
          }
        }
      }
      // git's own compare-and-swap, all updates or none: each ref must be at beforeOid (zeros: must not exist).
      try {
        gitWith(refUpdates.map((u) => `update ${u.name} ${u.afterOid} ${u.beforeOid}\n`).join(""), {}, "update-ref", "--stdin");
      } catch (error) {
        return refused("STALE_DATA", String((error as { stderr?: string }).stderr ?? error).trim());
      }
      return [200, { data: { updateRefs: { clientMutationId: null } } }];
    },
  );
  // The owner's `.github` repository holds no shared config.
  on("get", new RegExp(`^/repos/${owner}/\\.github/contents/.*$`), () => [404, { message: "Not Found" }]);
  return { state, routes, answer };
}

/**
 * GitHub's 422 for a body over 65,536 characters (a rule its OpenAPI description does not state), or null. Counted
 * in UTF-16 code units, which is never fewer than GitHub counts; a pull request's body is refused as an Issue's.
 */
function refuseLongBody(uri: string, body: unknown): [number, unknown] | null {
  const text = (body as { body?: unknown } | undefined)?.body;
  if (typeof text !== "string" || text.length <= 65_536) return null;
  const resource = /\/pulls\/(\d+\/)?comments/.test(uri) ? "PullRequestReviewComment" : /\/issues\/(\d+\/)?comments/.test(uri) ? "IssueComment" : "Issue";
  const documentation_url = "https://docs.github.com/rest";
  return [
    422,
    {
      message: "Validation Failed",
      errors: [{ resource, code: "custom", field: "body", message: "body is too long (maximum is 65536 characters)" }],
      documentation_url,
    },
  ];
}
