import { UsageError } from "../lib/usage-error.js";
import { LlmError } from "../llm/errors.js";
import type { Llm } from "../llm/types.js";
import { StageError } from "../pipeline/errors.js";
import { locateFiles } from "../pipeline/index.js";
import type { LocatedFile, ProgressEvent } from "../pipeline/types.js";
import type { Store } from "../store/store.js";
import { parseFlags, wholeNumberFlag, type Command } from "./io.js";
import { checkoutIndex, localHistory, makeModel, MEMORY_HELP, openCheckout, openMemoryStore } from "./open-checkout.js";
import { readIssueFiles } from "./read-issue-file.js";
import { readSettings } from "../app/settings/read-settings.js";
import { renderSettingsHelp } from "../app/settings/render-settings-help.js";

const usage = `Usage: magis locate --repo DIR --issue-file FILE [--hints-file FILE] [--top K] [--bm25-only] [--json]

Finds the files an issue is about (the MAGIS Repository Custodian): ranks the checkout's text files
against the issue with BM25, then summarizes each of the top K through the evolution memory and asks
the model whether it is relevant. The checkout is only read.

Options:
  --repo DIR         the checkout (its .github/magis.yml, if any, is the config: exclude, max_file_bytes, top_k)
  --issue-file FILE  the issue as Markdown: the first non-empty line is the title ("# " optional),
                     everything below it is the body
  --hints-file FILE  hints (issue comments, guidance), separated by lines holding only ---
  --top K            how many files BM25 keeps (default: top_k of the config, 10)
  --bm25-only        rank only: no summaries, no relevance check, no model needed
  --json             print {"files":[{"path":…,"score":…,"kept":…,"reason":…}]} (kept and reason only
                     when the relevance check ran)

The model (unless --bm25-only) is the Custodian's: MAGIS_MODEL_CUSTODIAN, else MAGIS_MODEL.
Exit 0 with files, 1 when none could be located (the reason is printed), 2 for a usage mistake.

${MEMORY_HELP}

${renderSettingsHelp("cli")}`;

const noModel: Llm = {
  ask: () => Promise.reject(new Error("--bm25-only runs no model")),
};

/** The human-readable result: a ranked table, then (after the relevance check) what was kept or dropped and why. */
export function formatLocated(files: LocatedFile[]): string {
  const width = Math.max(4, ...files.map((f) => f.path.length));
  const judged = files.some((f) => f.kept !== undefined);
  const lines = [`rank  ${"score".padStart(8)}  ${"file".padEnd(width)}${judged ? "  verdict" : ""}`.trimEnd()];
  files.forEach((file, index) => {
    const verdict = judged ? `  ${file.kept ? "kept   " : "dropped"}  ${file.reason ?? ""}` : "";
    lines.push(`${String(index + 1).padStart(4)}  ${file.score.toFixed(2).padStart(8)}  ${file.path.padEnd(width)}${verdict}`.trimEnd());
  });
  if (judged) {
    const kept = files.filter((f) => f.kept).length;
    lines.push("", `${kept} of ${files.length} kept`);
  }
  return lines.join("\n") + "\n";
}

function asJson(files: LocatedFile[]): string {
  const out = files.map((f) => ({ path: f.path, score: f.score, ...(f.kept === undefined ? {} : { kept: f.kept, reason: f.reason ?? "" }) }));
  return JSON.stringify({ files: out }) + "\n";
}

/** `magis locate`: the Custodian on a local checkout. */
export const locateCommand: Command = {
  name: "locate",
  usage,
  run: async (args, io) => {
    const { values } = parseFlags(args, {
      repo: { type: "string" },
      "issue-file": { type: "string" },
      "hints-file": { type: "string" },
      top: { type: "string" },
      "bm25-only": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    });
    if (!values.repo) throw new UsageError("--repo is required");
    if (!values["issue-file"]) throw new UsageError("--issue-file is required");
    const { repo, config } = openCheckout(io, values.repo);
    const top = values.top === undefined ? undefined : wholeNumberFlag("--top", values.top, 1, 1000);
    const issue = readIssueFiles({ cwd: io.cwd, issueFile: values["issue-file"], hintsFile: values["hints-file"] });
    const bm25Only = values["bm25-only"]!;
    const settings = readSettings(io.env, { door: "cli" });
    const llm = bm25Only ? null : makeModel(config, settings, io.stopSignal?.());
    let store: Store | null = null;
    // Shown even when every file is dropped, so the maintainer sees each reason.
    let judged: LocatedFile[] = [];
    try {
      // Opened with --bm25-only too: the store's index cache spares tokenizing unchanged files again.
      store = await openMemoryStore(settings);
      const onProgress = (event: ProgressEvent) => {
        if (event.stage === "located") judged = event.files;
      };
      const history = localHistory(io, { repo, config });
      const index = checkoutIndex(store.memory, config);
      const ctx = { root: repo, repoId: repo, config, llm: llm ?? noModel, now: () => Date.now(), onProgress, index, ...(history ? { history } : {}) };
      const files = await locateFiles(ctx, issue, store.memory, { bm25Only, top });
      io.stdout(values.json ? asJson(files) : formatLocated(files));
      if (llm && !values.json) {
        const stats = llm.stats();
        io.stderr(`model: ${stats.calls} call(s), ${stats.totalTokens} tokens (${stats.byAgent.custodian.model})\n`);
      }
      return 0;
    } catch (error) {
      if (error instanceof StageError) {
        if (judged.length > 0) io.stdout(values.json ? asJson(judged) : formatLocated(judged));
        io.stderr(`magis locate: ${error.message}. Next: ${error.nextStep}\n`);
        return 1;
      }
      if (error instanceof LlmError) {
        io.stderr(`magis locate: ${error.message}\n`);
        return 1;
      }
      throw error;
    } finally {
      await store?.close();
    }
  },
};
