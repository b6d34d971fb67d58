import { spawn } from "node:child_process";
import path from "node:path";
import { keepWindow, windowStart, type CommitRecord, type HistoryWindow } from "./commit-history.js";

/** Where a local repository is: a work tree (`cwd`) or a git directory (`gitDir`, a bare mirror). */
export type LocalRepository = { cwd: string } | { gitDir: string };

// Marks git is asked to write around each commit's header. A message may hold them (git refuses only a NUL), so a
// header is known by its whole NUL-ended field: starting with START (after what `log.showSignature` prints) and ending with END.
const START = "\x01";
const END = "\x02";

/** The folder a message names for the repository. */
function placeOf(repository: LocalRepository): string {
  return "gitDir" in repository ? repository.gitDir : repository.cwd;
}

/** Runs git and returns its standard output; rejects saying where and why it failed, and what to do when git is missing. */
function runGit(repository: LocalRepository, args: string[], signal?: AbortSignal): Promise<Buffer> {
  const where = "gitDir" in repository ? ["--git-dir", repository.gitDir] : ["-C", repository.cwd];
  const place = placeOf(repository);
  // A work tree's own .git only: a checkout without one, inside another repository, must not read that one's history.
  // git gets this process's environment, passed through on purpose (its own settings: HOME, PATH, GIT_*).
  const env = "cwd" in repository ? { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(path.resolve(repository.cwd)) } : process.env;
  return new Promise((resolve, reject) => {
    const child = spawn("git", [...where, ...args], { stdio: ["ignore", "pipe", "pipe"], env, signal });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (data: Buffer) => out.push(data));
    child.stderr.on("data", (data: Buffer) => err.push(data));
    child.on("error", (error: NodeJS.ErrnoException) =>
      reject(error.code === "ENOENT" ? new Error(`git is not installed (not found on PATH): install git to read the history of ${place}`) : error),
    );
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`git ${args[0]} failed in ${place} (exit ${code}): ${Buffer.concat(err).toString("utf8").trim().slice(0, 300)}`));
    });
  });
}

/** A header field's commit, or null when it is not one to keep (a root or shallow-boundary commit, a malformed line). */
function parseHeader(header: string): CommitRecord | null {
  const newline = header.indexOf("\n");
  const [oid, time, parent] = header.slice(0, newline === -1 ? header.length : newline).split(" ");
  // A root commit has no parent to compare with: its files are the project's start, not a change.
  if (!oid || !/^[0-9a-f]{40,64}$/.test(oid) || !parent) return null;
  return { oid, time: Number(time), message: newline === -1 ? "" : header.slice(newline + 1).replace(/\n+$/, ""), files: [] };
}

/**
 * Reads `git log -z --name-only` written with START, the id, time and parents, the message and END before each
 * commit's file names: git ends the header and each file name with a NUL, which no message or name holds.
 */
export function parseGitLog(output: string): CommitRecord[] {
  const commits: CommitRecord[] = [];
  let current: CommitRecord | null = null;
  for (const field of output.split("\0")) {
    const start = field.indexOf(START);
    if (start !== -1 && field.endsWith(END)) {
      current = parseHeader(field.slice(start + 1, -1));
      if (current) commits.push(current);
    } else if (current && field !== "") current.files.push(field.replace(/^\n/, ""));
  }
  return commits;
}

/**
 * The commits of a local repository's history within `window` of `commit` (default HEAD), merges left out, each
 * with the files it changed against its parent: what `magis locate` and the benchmarks read where the history is
 * on disk. Renames count as a deletion and an addition, as the fetched history sees them. A repository without
 * commits yet has no history; a `commit` that is not there is an error.
 */
export async function readLocalHistory(repository: LocalRepository, window: HistoryWindow, commit = "HEAD", signal?: AbortSignal): Promise<CommitRecord[]> {
  // `--ignore-missing` answers nothing for an unborn HEAD; `--` keeps a file named like the commit from being taken for it.
  const head = (await runGit(repository, ["log", "-1", "--format=%ct", "--ignore-missing", commit, "--"], signal)).toString("utf8").trim();
  if (head === "") {
    if (commit === "HEAD") return [];
    throw new Error(`git log found no commit ${commit} in ${placeOf(repository)}: fetch it, or check the commit id`);
  }
  const headTime = Number(head);
  const output = await runGit(
    repository,
    [
      "log",
      "-z",
      "--no-merges",
      "--no-renames",
      "--name-only",
      "--encoding=UTF-8",
      "--no-show-signature",
      `--since=${new Date(windowStart(headTime, window) * 1000).toISOString()}`,
      "-n",
      String(window.maxCommits),
      `--format=${START}%H %ct %P%n%B${END}`,
      commit,
      "--",
    ],
    signal,
  );
  return keepWindow(parseGitLog(output.toString("utf8")), headTime, window);
}
