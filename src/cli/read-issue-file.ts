import { UsageError } from "../lib/usage-error.js";
import fs from "node:fs";
import path from "node:path";
import { cleanText } from "../lib/clean-text.js";
import type { IssueText } from "../pipeline/types.js";

/**
 * Reads the issue the way `magis resolve` (and `magis locate`) take it: the first non-empty line is
 * the title (a leading "# " is dropped), the rest is the body. A hints file holds hints (issue
 * comments, guidance) separated by lines of three dashes. Text is cleaned as GitHub text is.
 */
export function readIssueFiles(files: { cwd: string; issueFile: string; hintsFile?: string }): IssueText {
  const { cwd, issueFile, hintsFile } = files;
  const lines = cleanText(readText(cwd, issueFile, "--issue-file")).split("\n");
  const titleAt = lines.findIndex((line) => line.trim() !== "");
  if (titleAt < 0) throw new UsageError(`--issue-file ${issueFile} is empty; write the title on the first line and the body below it`);
  const title = lines[titleAt]!.replace(/^#+\s*/, "").trim();
  const body = lines
    .slice(titleAt + 1)
    .join("\n")
    .trim();
  const hints = hintsFile
    ? readText(cwd, hintsFile, "--hints-file")
        .split(/^\s*---\s*$/m)
        .map(cleanText)
        .filter((hint) => hint !== "")
    : [];
  return { title, body, hints };
}

function readText(cwd: string, file: string, flag: string): string {
  try {
    return fs.readFileSync(path.resolve(cwd, file), "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${flag} ${file} cannot be read (${code === "ENOENT" ? "no such file" : (code ?? String(error))})`);
  }
}
