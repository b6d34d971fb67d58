// Fills in the issue texts of a localization manifest from GitHub. A held-out set is shared as facts
// (repository, commits, issue address, gold files) and each user fetches the issues' own words:
//
//   GITHUB_TOKEN=… npx tsx bench/lib/issue-texts.ts --manifest bench/data/heldout-2024.jsonl > heldout.jsonl
//   npm run bench:locate -- --data heldout.jsonl --repos DIR --prepare-from MIRRORS --baseline
//
// Without a token GitHub allows 60 requests an hour, fewer than a manifest needs.
import fs from "node:fs";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";

/** One line of a manifest: an instance without its problem statement. */
export interface ManifestEntry {
  instance_id: string;
  repo: string;
  base_commit: string;
  gold_files: string[];
  issue_url: string;
  fix_commit?: string;
}

/** An issue's title and the text of its first post. */
export interface IssueText {
  title: string;
  body: string;
}

const ISSUE_URL = /^https:\/\/github\.com\/([\w.-]+)\/([\w.-]+)\/issues\/(\d+)$/;

/** Reads a manifest (JSON Lines), saying which line is wrong and why. */
export function readManifest(file: string): ManifestEntry[] {
  const lines = fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
  return lines.map((line, index) => {
    const where = `${file}:${index + 1}`;
    let entry: ManifestEntry;
    try {
      entry = JSON.parse(line) as ManifestEntry;
    } catch {
      throw new Error(`${where} is not JSON; each line must be one manifest entry`);
    }
    if (typeof entry.issue_url !== "string" || !ISSUE_URL.test(entry.issue_url)) {
      throw new Error(`${where}: issue_url must look like https://github.com/owner/name/issues/123`);
    }
    if (!Array.isArray(entry.gold_files) || entry.gold_files.length === 0) throw new Error(`${where}: gold_files must list at least one path`);
    return entry;
  });
}

/** Fetches an issue's title and first post through GitHub's REST API. The token goes in a header and nowhere else. */
export async function fetchIssue(url: string, token: string | undefined): Promise<IssueText> {
  const [, owner, name, number] = ISSUE_URL.exec(url) ?? [];
  if (!owner) throw new Error(`${url} is not a GitHub issue address`);
  const headers: Record<string, string> = { accept: "application/vnd.github+json", "user-agent": "magis-bench" };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`https://api.github.com/repos/${owner}/${name}/issues/${number}`, { headers });
  if (response.status === 403 || response.status === 429) {
    const next = token
      ? "the token may lack access to the repository (or single sign-on approval), or its rate limit is spent; check it, or wait an hour"
      : "without a token GitHub allows 60 requests an hour; set GITHUB_TOKEN and run again";
    throw new Error(`GitHub refused ${url} (HTTP ${response.status}): ${next}`);
  }
  if (response.status === 404 || response.status === 410) {
    throw new Error(
      `GitHub has no issue at ${url} (HTTP ${response.status}): it was deleted or the repository moved; correct or drop that line of the manifest`,
    );
  }
  if (!response.ok) throw new Error(`GitHub answered HTTP ${response.status} for ${url}; run again later`);
  const issue = (await response.json()) as { title?: string; body?: string | null; pull_request?: unknown };
  if (issue.pull_request) throw new Error(`${url} is a pull request, not an issue; fix the manifest`);
  return { title: issue.title ?? "", body: issue.body ?? "" };
}

/** The manifest's instances with SWE-bench's problem statement: the title, a newline, the first post. */
export async function fillIssueTexts(
  entries: ManifestEntry[],
  fetchText: (url: string) => Promise<IssueText>,
): Promise<Array<ManifestEntry & { problem_statement: string }>> {
  const filled = [];
  for (const entry of entries) {
    const { title, body } = await fetchText(entry.issue_url);
    filled.push({ ...entry, problem_statement: `${title}\n${body.replace(/\r\n/g, "\n")}` });
  }
  return filled;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { manifest: { type: "string" } } });
  if (!values.manifest) {
    console.error("usage: npx tsx bench/lib/issue-texts.ts --manifest FILE.jsonl > instances.jsonl   (GITHUB_TOKEN in the environment)");
    process.exit(2);
  }
  try {
    const token = process.env.GITHUB_TOKEN;
    const filled = await fillIssueTexts(readManifest(values.manifest), (url) => fetchIssue(url, token));
    for (const instance of filled) process.stdout.write(`${JSON.stringify(instance)}\n`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
