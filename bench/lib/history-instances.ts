// Builds localization instances from a repository's own history, for a sanity check on projects not in
// the development set: each commit that adds a change-log entry and changes exactly one non-test source
// file becomes an instance whose "issue" is that entry and whose gold file is that source file.
// Change-log entries are written by the fixer, so they can name the fix more precisely than a real
// issue; treat the figures as a sanity check, not as a held-out benchmark.
//
//   npx tsx bench/lib/history-instances.ts --git-dir DIR --repo owner/name --source-prefix src/
//       (--fragments changelog | --changes-file CHANGES) [--since 2019-01-01] [--until 2024-01-01] [--count 40] > out.jsonl
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    "git-dir": { type: "string" },
    repo: { type: "string" },
    "source-prefix": { type: "string", default: "" },
    fragments: { type: "string" },
    "changes-file": { type: "string" },
    since: { type: "string", default: "2019-01-01" },
    until: { type: "string", default: "2024-01-01" },
    count: { type: "string", default: "40" },
  },
});
if (!values["git-dir"] || !values.repo || (!values.fragments && !values["changes-file"])) {
  console.error(
    "usage: history-instances --git-dir DIR --repo owner/name [--source-prefix P] (--fragments DIR | --changes-file FILE) [--since D] [--until D] [--count N]",
  );
  process.exit(2);
}
const git = (...args: string[]) => execFileSync("git", ["--git-dir", values["git-dir"]!, ...args], { maxBuffer: 1 << 28 }).toString();
const logPath = values.fragments ?? values["changes-file"]!;
const commits = git("log", `--since=${values.since}`, `--until=${values.until}`, "--no-merges", "--format=%H", "--", logPath).split("\n").filter(Boolean);

const instances = [];
for (const sha of commits) {
  const changed = git("diff-tree", "--no-commit-id", "-r", "--name-status", `${sha}^`, sha)
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split("\t") as [string, string]);
  const sources = changed
    .map(([, file]) => file)
    .filter((f) => f.endsWith(".py") && f.startsWith(values["source-prefix"]!) && !/(^|\/)tests?\/|(^|\/)test_/.test(f));
  if (sources.length !== 1) continue;
  let text: string;
  if (values.fragments) {
    const fragment = changed.find(
      ([status, file]) => status === "A" && file.startsWith(`${values.fragments}/`) && /\.(bugfix|feature|improvement)\.rst$/.test(file),
    );
    if (!fragment) continue;
    text = git("show", `${sha}:${fragment[1]}`).trim();
  } else {
    const added = git("diff", `${sha}^`, sha, "--", logPath)
      .split("\n")
      .filter((l) => l.startsWith("+") && !l.startsWith("+++"))
      .map((l) => l.slice(1).trim());
    text = added
      .filter((l) => l !== "" && !/^[-=*]+$/.test(l))
      .join(" ")
      .replace(/^\*\s*/, "");
    if (/^Release \d/.test(text)) continue; // version bumps, not fixes
  }
  if (text.length < 30) continue;
  instances.push({
    instance_id: `${values.repo.split("/")[1]}-${sha.slice(0, 10)}`,
    repo: values.repo,
    base_commit: git("rev-parse", `${sha}^`).trim(),
    problem_statement: text,
    gold_files: sources,
  });
}
// An even sample over the period, so no single stretch of history dominates.
const step = Math.max(1, Math.floor(instances.length / Number(values.count)));
for (const instance of instances.filter((_, i) => i % step === 0).slice(0, Number(values.count))) console.log(JSON.stringify(instance));
console.error(`${instances.length} candidate commits, ${Math.min(instances.length, Number(values.count))} written`);
