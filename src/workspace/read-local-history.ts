import { spawn } from "node:child_process";
import path from "node:path";
import { keepWindow, windowStart, type CommitRecord, type HistoryWindow } from "./commit-history.js";

/** Where a local repository is: a work tree (`cwd`) or a git directory (`gitDir`, a bare mirror). */
export type LocalRepository = { cwd: string } | { gitDir: string };

// Separators git is asked to write around each commit's header; no message of a real commit holds them.
const START = "\x01";
const END = "\x02";

/** Runs git and returns its standard output; rejects with its standard error when it fails. */
function runGit(repository: LocalRepository, args: string[], signal?: AbortSignal): Promise<Buffer> {
  const where = "gitDir" in repository ? ["--git-dir", repository.gitDir] : ["-C", repository.cwd];
  // A work tree's own .git only: a checkout without one, inside another repository, must not read that one's history.
  const env = "cwd" in repository ? { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(path.resolve(repository.cwd)) } : process.env;
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["-c", "core.quotepath=false", ...where, ...args], { stdio: ["ignore", "pipe", "pipe"], env, signal });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (data: Buffer) => out.push(data));
    child.stderr.on("data", (data: Buffer) => err.push(data));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`git ${args[0]} failed (exit ${code}): ${Buffer.concat(err).toString("utf8").trim().slice(0, 300)}`));
    });
  });
}

/**
 * Reads `git log -z --name-only` written with START, the id, time and parents, the message and END before
 * each commit's file names (each ended by a NUL).
 */
export function parseGitLog(output: string): CommitRecord[] {
  const commits: CommitRecord[] = [];
  for (const record of output.split(START).slice(1)) {
    const end = record.indexOf(END);
    if (end === -1) continue;
    const header = record.slice(0, end);
    const newline = header.indexOf("\n");
    const [oid, time, parent] = header.slice(0, newline === -1 ? header.length : newline).split(" ");
    // A root commit has no parent to compare with: its files are the project's start, not a change.
    if (!oid || !/^[0-9a-f]{40,64}$/.test(oid) || !parent) continue;
    const files = record
      .slice(end + 1)
      .split("\0")
      .map((name) => name.replace(/^\n/, ""))
      .filter((name) => name !== "");
    commits.push({ oid, time: Number(time), message: newline === -1 ? "" : header.slice(newline + 1).replace(/\n+$/, ""), files });
  }
  return commits;
}

/**
 * The commits of a local repository's history within `window` of `commit` (default HEAD), merges left out, each
 * with the files it changed against its parent: what `magis locate` and the benchmarks read where the history is
 * on disk. Renames count as a deletion and an addition, as the fetched history sees them.
 */
export async function readLocalHistory(repository: LocalRepository, window: HistoryWindow, commit = "HEAD", signal?: AbortSignal): Promise<CommitRecord[]> {
  const headTime = Number((await runGit(repository, ["log", "-1", "--format=%ct", commit], signal)).toString("utf8").trim());
  const output = await runGit(
    repository,
    [
      "log", "-z", "--no-merges", "--no-renames", "--name-only", `--since=${new Date(windowStart(headTime, window) * 1000).toISOString()}`, `-n`, String(window.maxCommits),
      `--format=${START}%H %ct %P%n%B${END}`, commit, "--",
    ],
    signal,
  );
  return keepWindow(parseGitLog(output.toString("utf8")), headTime, window);
}
