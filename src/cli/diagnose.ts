import fs from "node:fs";
import path from "node:path";
import { applyPatch, parsePatch } from "diff";
import { nameWorkspace, openLanguageServers, type AddedProblem } from "../language-servers/index.js";
import { resolveInside } from "../lib/safe-path.js";
import { UsageError } from "../lib/usage-error.js";
import { refusedProblems } from "../pipeline/index.js";
import type { Store } from "../store/store.js";
import { openCheckout } from "./open-checkout.js";
import { openDiagnosticsCache } from "./open-diagnostics-cache.js";
import { parseFlags, type Command } from "./io.js";

const usage = `Usage: magis diagnose --repo DIR --patch FILE [--all] [--json]

Applies a unified diff (as \`git diff\` writes it) to the files of a checkout in memory, and asks the language
servers (Pyright for Python, the TypeScript server for JavaScript and TypeScript) for the errors each changed
file has after it and did not have before, as the pipeline judges a Developer's attempt: those of the rules
in diagnostics.refuse_rules of the checkout's .github/magis.yml (or the defaults) refuse it, and they are the
ones listed; as in the pipeline, a file's old text is checked only when its new text has such an error. The
checkout is only read. Where the checkout is a clean work tree of a commit, what the servers said of its untouched files is
kept in the evolution memory's index cache (see \`magis locate --help\` for where), and a later run on that commit checks
only the new texts; a store that does not open is said once on stderr, and the check runs without it. Exit 0 when
the patch adds no refusing error, 1 when it adds one, 2 for a usage mistake.

Options:
  --repo DIR    the checkout the patch applies to
  --patch FILE  the patch
  --all         list every error the patch adds, of any rule (both texts of each file are checked)
  --json        print one JSON object instead of text: {files: [{path, checked, why?, added: [{line,
                column, rule, message, refuses}]}], refused}`;

/** One file of the patch as the servers judged it. */
interface FileVerdict {
  path: string;
  checked: boolean;
  why?: string;
  added: (AddedProblem & { refuses: boolean })[];
}

/** `magis diagnose`: the errors a patch adds, as the semantic check of an attempt sees them. */
export const diagnoseCommand: Command = {
  name: "diagnose",
  usage,
  run: async (args, io) => {
    const { values } = parseFlags(args, {
      repo: { type: "string" },
      patch: { type: "string" },
      all: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    });
    for (const flag of ["repo", "patch"] as const) if (!values[flag]) throw new UsageError(`--${flag} is required`);
    const { repo, config } = openCheckout(io, values.repo!);
    const patchFile = path.resolve(io.cwd, values.patch!);
    if (!fs.existsSync(patchFile)) throw new UsageError(`--patch ${values.patch} does not exist`);
    const changes = readChanges(repo, fs.readFileSync(patchFile, "utf8"), values.patch!);
    const seconds = config.diagnostics.timeout_seconds;
    const stop = io.stopSignal?.();
    // Only a checkout whose state has a name keeps anything: a store is opened for nothing else.
    const workspace = await nameWorkspace(repo);
    let store: Store | null = null;
    const verdicts: FileVerdict[] = [];
    try {
      store = workspace ? await openDiagnosticsCache(io) : null;
      const across = store ? { cache: store.memory.index, workspace: Promise.resolve(workspace) } : undefined;
      const limits = { startMs: seconds * 1000, requestMs: seconds * 1000, memoryMb: config.diagnostics.memory_mb };
      const servers = openLanguageServers(repo, limits, undefined, across);
      try {
        for (const change of changes) {
          // Stopped (SIGTERM, Ctrl-C): no further check starts, and the servers stop below.
          stop?.throwIfAborted();
          // The patch's other files are read as it leaves them, as a job's earlier changes are.
          const alongside = changes.map((other) => ({ path: other.path, text: other.after }));
          const check = await servers.check(change.path, change.before, change.after, {
            alongside,
            ...(!values.all && { only: config.diagnostics.refuse_rules }),
          });
          if (!check.checked) {
            verdicts.push({ path: change.path, checked: false, why: check.why, added: [] });
            continue;
          }
          const refusing = new Set(refusedProblems({ config }, check.language, check.added));
          verdicts.push({ path: change.path, checked: true, added: check.added.map((p) => ({ ...p, refuses: refusing.has(p) })) });
        }
      } finally {
        await servers.stop();
      }
    } finally {
      await store?.close();
    }
    const refused = verdicts.some((v) => v.added.some((p) => p.refuses));
    if (values.json) io.stdout(`${JSON.stringify({ files: verdicts, refused }, null, 2)}\n`);
    else io.stdout(verdicts.map(describeVerdict).join(""));
    return refused ? 1 : 0;
  },
};

function describeVerdict(verdict: FileVerdict): string {
  if (!verdict.checked) return `${verdict.path}: not checked (${verdict.why})\n`;
  if (verdict.added.length === 0) return `${verdict.path}: no errors added\n`;
  const refusing = verdict.added.filter((p) => p.refuses).length;
  const head = `${verdict.path}: ${verdict.added.length} error${verdict.added.length === 1 ? "" : "s"} added, ${refusing} refusing\n`;
  return head + verdict.added.map((p) => `  line ${p.line}, column ${p.column}: ${p.message} (${p.rule})${p.refuses ? " — refuses" : ""}\n`).join("");
}

/** Each file the patch changes, with its text before and after; a patch that does not apply is a usage mistake. */
function readChanges(repo: string, patch: string, name: string): { path: string; before: string; after: string }[] {
  const files = parsePatch(patch).filter((p) => p.hunks.length > 0);
  if (files.length === 0) throw new UsageError(`--patch ${name} holds no change: give a unified diff, as \`git diff\` writes it`);
  return files.flatMap((file) => {
    const strip = (name: string | undefined) => (name && name !== "/dev/null" ? name.replace(/^[ab]\//, "") : null);
    const target = strip(file.newFileName);
    // A deleted file has no text left to check.
    if (!target) return [];
    const source = strip(file.oldFileName);
    let before = "";
    if (source) {
      const { absolute } = resolveInside(repo, source);
      if (!fs.existsSync(absolute)) throw new UsageError(`--patch ${name} changes ${source}, which is not in --repo`);
      before = fs.readFileSync(absolute, "utf8");
    }
    const after = applyPatch(before, file);
    if (after === false) throw new UsageError(`--patch ${name} does not apply to ${source ?? target} in --repo (its context lines differ)`);
    resolveInside(repo, target);
    return [{ path: target, before, after }];
  });
}
