import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

/** A real `git http-backend` behind a node:http wrapper on 127.0.0.1, serving bare repositories over smart HTTP. */
export interface GitServer {
  /** Base URL; a repository `owner/name` is at `${url}/owner/name.git`. */
  url: string;
  /** Directory holding the bare repositories (`<root>/owner/name.git`). */
  root: string;
  /** Every request seen: method, path and the Basic credentials it carried (if any). */
  requests: { method: string; path: string; username?: string; password?: string }[];
  /** Runs the real `git` in a bare repository and returns its trimmed stdout. */
  git(repo: string, ...args: string[]): string;
  close(): Promise<void>;
}

export interface GitServerOptions {
  /** When set, every request must carry Basic credentials `x-access-token:<token>`; others get 401. */
  token?: string;
  /** When set, each answer's body is sent at most this fast, as over a network link (bytes a second). */
  bytesPerSecond?: number;
  /** When set, the last `bytes` of each fetch's answer (a POST to upload-pack) wait until `until` resolves: the pack is all but there. */
  holdTail?: { bytes: number; until: () => Promise<void> };
}

/** Creates a bare repository `owner/name` whose default branch holds `files` (text, or bytes as they are), committed by the real git. */
export function createBareRepository(root: string, fullName: string, files: Record<string, string | Uint8Array>, branch = "main"): string {
  const bare = path.join(root, `${fullName}.git`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-seed-"));
  try {
    for (const [rel, content] of Object.entries(files)) {
      const file = path.join(work, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
    }
    const git = (...args: string[]) => execFileSync("git", args, { cwd: work, env: gitEnv(), stdio: "pipe" });
    git("init", "-q", "-b", branch);
    git("add", "-A");
    git("commit", "-q", "-m", "Initial commit");
    fs.mkdirSync(path.dirname(bare), { recursive: true });
    execFileSync("git", ["clone", "-q", "--bare", work, bare], { env: gitEnv(), stdio: "pipe" });
    execFileSync("git", ["config", "http.receivepack", "true"], { cwd: bare, stdio: "pipe" });
    return bare;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** A commit a test makes with the real git: files written on top of `from` (default: the branch itself), pushed to `branch`. */
export interface SeedCommit {
  branch: string;
  from?: string;
  files: Record<string, string>;
  message: string;
  author: { name: string; email: string };
}

/** Adds one commit to a branch of a bare repository (as the bot or a person would push it) and returns its id. */
export function addCommit(root: string, fullName: string, commit: SeedCommit): string {
  const bare = path.join(root, `${fullName}.git`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-seed-"));
  try {
    const env = {
      ...gitEnv(),
      GIT_AUTHOR_NAME: commit.author.name,
      GIT_AUTHOR_EMAIL: commit.author.email,
      GIT_COMMITTER_NAME: commit.author.name,
      GIT_COMMITTER_EMAIL: commit.author.email,
    };
    const git = (...args: string[]) => execFileSync("git", args, { cwd: work, env, encoding: "utf8", stdio: "pipe" }).trim();
    execFileSync("git", ["clone", "-q", bare, work], { env, stdio: "pipe" });
    git("checkout", "-q", "-B", commit.branch, `origin/${commit.from ?? commit.branch}`);
    for (const [rel, content] of Object.entries(commit.files)) {
      fs.mkdirSync(path.dirname(path.join(work, rel)), { recursive: true });
      fs.writeFileSync(path.join(work, rel), content);
    }
    git("add", "-A");
    git("commit", "-q", "-m", commit.message);
    git("push", "-q", "origin", `HEAD:refs/heads/${commit.branch}`);
    return git("rev-parse", "HEAD");
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** An environment for the real git that ignores the machine's own git config. */
export function gitEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "Test Maintainer",
    GIT_AUTHOR_EMAIL: "maintainer@example.com",
    GIT_COMMITTER_NAME: "Test Maintainer",
    GIT_COMMITTER_EMAIL: "maintainer@example.com",
  };
}

/** Starts the git server on 127.0.0.1 (a random port) over the bare repositories under `root`. */
export async function startGitServer(root: string, options: GitServerOptions = {}): Promise<GitServer> {
  const requests: GitServer["requests"] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const credentials = parseBasic(req.headers.authorization);
    requests.push({ method: req.method ?? "GET", path: url.pathname, ...credentials });
    if (options.token && (credentials.username !== "x-access-token" || credentials.password !== options.token)) {
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"' }).end("authentication required\n");
      return;
    }
    const backend = spawn("git", ["http-backend"], {
      env: {
        ...gitEnv(),
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        REQUEST_METHOD: req.method ?? "GET",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        ...(req.headers["content-length"] ? { CONTENT_LENGTH: req.headers["content-length"] } : {}),
        ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: req.headers["content-encoding"] } : {}),
        ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
        REMOTE_ADDR: "127.0.0.1",
        REMOTE_USER: credentials.username ?? "",
      },
    });
    req.pipe(backend.stdin);
    const paced = options.bytesPerSecond ? pacedBody(res, options.bytesPerSecond) : res;
    relayCgiResponse(backend.stdout, options.holdTail && req.method === "POST" ? heldTail(paced, options.holdTail) : paced);
    backend.stderr.resume();
    backend.on("error", (error) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    root,
    requests,
    git: (repo, ...args) => execFileSync("git", args, { cwd: path.join(root, `${repo}.git`), env: gitEnv(), encoding: "utf8" }).trim(),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function parseBasic(header: string | undefined): { username?: string; password?: string } {
  if (!header?.startsWith("Basic ")) return {};
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** What relayCgiResponse writes an answer to. */
type AnswerSink = Pick<http.ServerResponse, "writeHead" | "write" | "end">;

/**
 * `res` with its body's bytes sent no faster than `bytesPerSecond`, in order: each part leaves once the link would
 * have carried the parts before it, as a git host's bytes reach a worker over its network.
 */
function pacedBody(res: http.ServerResponse, bytesPerSecond: number): AnswerSink {
  let free = performance.now();
  let last: Promise<void> = Promise.resolve();
  const later = (send: () => void, bytes: number) => {
    const at = Math.max(free, performance.now());
    free = at + (bytes / bytesPerSecond) * 1000;
    const due = free;
    last = last.then(() => new Promise<void>((resolve) => setTimeout(() => (send(), resolve()), Math.max(0, due - performance.now()))));
  };
  // relayCgiResponse writes the body's parts and ends it without one (an answer without headers it ends at once).
  return {
    writeHead: res.writeHead.bind(res) as AnswerSink["writeHead"],
    write: ((chunk: Buffer) => (later(() => res.write(chunk), chunk.length), true)) as AnswerSink["write"],
    end: (() => (later(() => res.end(), 0), res)) as unknown as AnswerSink["end"],
  };
}

/** `sink` with the last `bytes` of its body held back until `until` resolves (see GitServerOptions.holdTail). */
function heldTail(sink: AnswerSink, { bytes, until }: { bytes: number; until: () => Promise<void> }): AnswerSink {
  let tail = Buffer.alloc(0);
  return {
    writeHead: sink.writeHead.bind(sink) as AnswerSink["writeHead"],
    write: ((chunk: Buffer) => {
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > bytes) {
        sink.write(tail.subarray(0, tail.length - bytes));
        tail = tail.subarray(tail.length - bytes);
      }
      return true;
    }) as AnswerSink["write"],
    end: (() => {
      void until().then(() => {
        sink.write(tail);
        sink.end();
      });
      return sink;
    }) as unknown as AnswerSink["end"],
  };
}

// A CGI response is a header block (Status: among the headers), a blank line, then the body.
function relayCgiResponse(stdout: NodeJS.ReadableStream, res: AnswerSink): void {
  let head = Buffer.alloc(0);
  let bodyStarted = false;
  stdout.on("data", (chunk: Buffer) => {
    if (bodyStarted) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n") >= 0 ? head.indexOf("\r\n\r\n") : head.indexOf("\n\n");
    if (end < 0) return;
    const separator = head[end] === 0x0d ? 4 : 2;
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head.subarray(0, end).toString("utf8").split(/\r?\n/)) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
      else headers[name] = value;
    }
    res.writeHead(status, headers);
    bodyStarted = true;
    res.write(head.subarray(end + separator));
  });
  stdout.on("end", () => {
    if (!bodyStarted) res.writeHead(502).end("git http-backend sent no headers\n");
    else res.end();
  });
}
