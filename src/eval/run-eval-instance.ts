import fs from "node:fs";
import path from "node:path";
import { AGENTS, type MagisConfig } from "../config.js";
import { loadRepoConfig } from "../cli/load-repo-config.js";
import type { LlmClient } from "../llm/client.js";
import { dollarsOf, type ModelPrices } from "../llm/prices.js";
import type { TraceRecord } from "../llm/types.js";
import { StageError } from "../pipeline/errors.js";
import { startTimeLimit, type TimeLimit } from "../lib/time-limit.js";
import { locateFiles, openJobIndex, resolveIssue, withLanguageServers, type TermMemory } from "../pipeline/index.js";
import type { CommandPolicy, EnvironmentReport, IssueText, LocatedFile, ProgressEvent, ReproductionReport, ResolveResult } from "../pipeline/types.js";
import type { MemoryStore } from "../store/store.js";
import { startLocalSession } from "../session/record-local-run.js";
import type { SessionOutcome } from "../session/types.js";
import { checkPatchApplies } from "./check-patch-applies.js";
import { fileRecall } from "./file-recall.js";
import { compareToGold, type GoldComparison } from "./compare-to-gold.js";
import { findMirror, prepareCheckout } from "./prepare-checkouts.js";
import { historyWindow, type CommitRecord } from "../git/commit-history.js";
import { readLocalHistory } from "../git/read-local-history.js";
import { readCheckoutCommit } from "./read-checkout-commit.js";
import { countCandidates } from "./count-candidates.js";
import { findGoldCandidate } from "./find-gold-candidate.js";
import { instanceDir, type BenchInstance } from "./read-instances.js";
import { environmentOf, type EnvironmentTable } from "./read-environments.js";
import { tokensByPrompt } from "./tokens-by-prompt.js";
import type { AgentTokens, EvalFailure, EvalResult } from "./types.js";

/** What one instance's run needs: where checkouts are and come from, the shared memory, the model, and the clock. */
export interface InstanceSetup {
  /** The folder of checkouts, `<repos>/<instance_id>/`. */
  repos: string;
  /** Bare mirrors to make a missing checkout from (`--prepare-from`). */
  prepareFrom?: string;
  /** Where the scratch copy the pipeline works on is made (removed after the run). */
  scratch: string;
  memory: MemoryStore;
  /** The memory's index cache with the run's memo in front of it (see TermMemory), shared by the instances. */
  terms: TermMemory;
  /**
   * A model client for this instance alone, so that its calls, tokens and trace are the instance's; `checkout` is the
   * untouched base; `signal` stops its calls (the instance's time limit, or the run's stop).
   */
  makeLlm: (config: MagisConfig, instance: BenchInstance, checkout: string, signal: AbortSignal) => LlmClient;
  commands: CommandPolicy;
  /** The run's own credentials (the model's key): redacted from each instance's session, whether commands run or not. */
  secrets?: readonly (string | undefined)[];
  /** Candidate changes per Developer attempt, over the checkout's config (`--candidates`). */
  candidates?: number;
  /** How each repository's instances are set up (`--environments`), over the checkout's config. */
  environments?: EnvironmentTable;
  now: () => number;
  /** US dollars per million prompt and completion tokens, by model (MAGIS_MODEL_PRICES, --prices, --price-in/--price-out). */
  prices?: ModelPrices;
  /** A line of what was done besides the run (a checkout made from a mirror). */
  log: (line: string) => void;
  /** Aborted when the whole run is to stop: the instance stops where it is, having removed what it made. */
  signal?: AbortSignal;
}

/** An instance's run: its results line, its patch, its model calls, and what the pipeline handed on (for the oracle's accounting). */
export interface InstanceRun {
  result: EvalResult;
  patch: string;
  trace: TraceRecord[];
  resolved: ResolveResult | null;
  /** The checkout's config (its size cap, its excludes), when it was read. */
  config: MagisConfig | null;
  /** The untouched checkout, when there is one. */
  checkout: string | null;
  /** The patch measured against the gold patch; null without a gold patch. */
  comparison: GoldComparison | null;
  /** The instance's session as one self-contained page, as `magis resolve` writes it (session.html); absent only from runs a test makes by hand. */
  sessionPage?: string;
}

/**
 * Runs one instance as the CLI and the App run an issue, on a scratch copy of its checkout, within the checkout's
 * job_timeout_minutes, and measures the patch against the gold one. Every failure (no checkout, another commit, a stage
 * that fails, the time limit, a crash) ends in the result's `failure`; nothing is thrown for the instance.
 */
export async function runEvalInstance(instance: BenchInstance, setup: InstanceSetup): Promise<InstanceRun> {
  const started = setup.now();
  let located: LocatedFile[] = [];
  let llm: LlmClient | null = null;
  let resolved: ResolveResult | null = null;
  let question: string | undefined;
  let failure: EvalFailure | null;
  let config: MagisConfig | null = null;
  let history: () => Promise<CommitRecord[]> = async () => [];
  let reproduction: ReproductionReport | undefined;
  let environment: EnvironmentReport | undefined;
  const checkout = instanceDir(setup.repos, instance.instance_id);
  const copy = instanceDir(setup.scratch, instance.instance_id);
  let limit: TimeLimit | null = null;
  const session = startLocalSession({
    job: { id: 0, jobKind: "eval", repository: instance.repo, number: null, title: `${instance.instance_id}: ${issueOf(instance).title}` },
    trace: () => llm?.trace ?? [],
    secrets: [...(setup.secrets ?? []), ...(setup.commands.allowed ? (setup.commands.secrets ?? []) : [])],
    prices: setup.prices,
    // The wall clock, as the pipeline's own: `setup.now` times the instance alone.
    now: Date.now,
  });
  try {
    // 1. The checkout, at the instance's base commit (made from a mirror when asked), copied so it is never changed.
    failure = (await prepare(instance, setup)) ?? checkCheckout(checkout, instance);
    if (!failure) {
      fs.rmSync(copy, { recursive: true, force: true });
      // Without the checkout's .git (hundreds of MB in a real repository): nothing in the pipeline runs git on the copy.
      const topGit = path.join(checkout, ".git");
      await fs.promises.cp(checkout, copy, { recursive: true, verbatimSymlinks: true, filter: (source) => source !== topGit });
      const declared = setup.environments ? environmentOf(setup.environments, instance) : null;
      config = loadRepoConfig(copy, { ...declared, ...(setup.candidates ? { candidates: setup.candidates } : {}) });
      history = instanceHistory(instance, setup, checkout, config);
      limit = startTimeLimit(config.job_timeout_minutes, setup.signal);
      llm = setup.makeLlm(config, instance, checkout, limit.signal);
      const { commands } = setup;
      // 2. The pipeline of `magis resolve` and the App, with the repository's memory shared by its instances.
      const issue = issueOf(instance);
      const onProgress = (event: ProgressEvent) => {
        session.onProgress(event);
        if (event.stage === "located") located = event.files;
        if (event.stage === "reproduction") reproduction = event.reproduction;
        // The environment is made ready once, for the tests or the reproduction, whichever comes first.
        environment ??= event.stage === "tests" ? event.tests.environment : event.stage === "reproduction" ? event.reproduction.environment : undefined;
      };
      // The pipeline keeps its own time (its usage report); `setup.now` times the instance.
      const index = openJobIndex({ terms: setup.terms, list: { exclude: config.exclude, maxFileBytes: config.max_file_bytes } });
      const outcome = await withLanguageServers(
        {
          root: copy,
          repoId: instance.repo,
          config,
          llm,
          now: Date.now,
          onProgress,
          commands: session.commands(commands.allowed ? { ...commands, signal: limit.signal } : commands),
          history,
          index,
        },
        (ctx) => resolveIssue(ctx, issue, setup.memory),
      );
      limit.signal.throwIfAborted();
      // A question is no patch and no failure: counted apart (the summary's row), as the App posts it to the author.
      if ("question" in outcome) question = outcome.question;
      else resolved = outcome;
    }
  } catch (error) {
    const stage = error instanceof StageError ? error.stage : "crash";
    // Stopped, the reason is the stop's (the time limit), not the error of the call it cut short.
    const stopped = limit?.signal.aborted ? (limit.signal.reason as unknown) : null;
    const why = stopped ?? error;
    failure = { stage, reason: why instanceof Error ? why.message : String(why) };
    // A model that failed before the relevance check leaves no located files: BM25's own ranking still says whether the gold files were found.
    if (failure.stage === "locate" && located.length === 0 && config && !stopped) located = await rankOnly(copy, instance, config, history);
  } finally {
    limit?.clear();
    fs.rmSync(copy, { recursive: true, force: true });
  }

  // 3. The measures: does the patch apply to the untouched checkout, how much of the gold patch it covers, which files were found.
  // The prediction is JSON text, so a file that is not UTF-8 reaches the harness re-encoded: check what it gets.
  const patch = resolved ? resolved.patch.toString("utf8") : "";
  const applies = patch !== "" ? (await checkPatchApplies(checkout, Buffer.from(patch, "utf8"))).applies : null;
  const comparison = instance.patch
    ? await compareToGold(failure?.stage === "input" ? null : checkout, instance.patch, resolved?.patch ?? Buffer.alloc(0))
    : null;
  const candidates = resolved ? await recordCandidates(resolved, instance, failure?.stage === "input" ? null : checkout) : {};
  const kept = located.filter((f) => f.kept).map((f) => f.path);
  const result: EvalResult = {
    instance_id: instance.instance_id,
    repo: instance.repo,
    patch: patch !== "",
    applies,
    coverage: comparison?.coverage ?? null,
    gold_files: instance.gold_files,
    located: located.map((f) => f.path),
    kept,
    changed: resolved ? resolved.changes.map((c) => c.path) : [],
    recall_located: fileRecall(
      located.map((f) => f.path),
      instance.gold_files,
    ),
    recall_kept: fileRecall(kept, instance.gold_files),
    failure,
    ...(question === undefined ? {} : { question }),
    ...(reproduction ? describeWay(reproduction) : {}),
    ...((resolved?.environment ?? environment) ? { environment: describeEnvironmentRun((resolved?.environment ?? environment)!) } : {}),
    ...candidates,
    ...usageOf(llm, setup.prices),
    wall_ms: setup.now() - started,
  };
  const sessionPage = await session.end(sessionOutcome(failure, question, result));
  return { result, patch, trace: llm?.trace ?? [], resolved, config, checkout: failure?.stage === "input" ? null : checkout, comparison, sessionPage };
}

/** How the instance ended, as its session's page says it. */
function sessionOutcome(failure: EvalFailure | null, question: string | undefined, result: EvalResult): SessionOutcome {
  if (failure) return { status: "failed", detail: failure.reason, stage: failure.stage };
  if (question !== undefined) return { status: "asked", detail: question.trim() };
  const changed = result.changed.length === 0 ? "no file changed" : `${result.changed.length} file(s) changed: ${result.changed.join(", ")}`;
  return { status: "succeeded", detail: result.applies === false ? `${changed}; the patch does not apply to the checkout` : changed };
}

/** The instance's candidates as results.jsonl records them, with whether the gold change was among them (given a gold patch and the checkout). */
async function recordCandidates(resolved: ResolveResult, instance: BenchInstance, checkout: string | null): Promise<Pick<EvalResult, "candidates">> {
  const { candidates } = countCandidates(resolved);
  if (!candidates || !instance.patch || !checkout) return candidates ? { candidates } : {};
  const held = await findGoldCandidate(resolved, checkout, instance.patch);
  return { candidates: { ...candidates, ...(held === null ? {} : { gold_equivalent: held }) } };
}

/** Whether the instance's environment was made ready, how, and in how long, as results.jsonl records it. */
function describeEnvironmentRun(report: EnvironmentReport): NonNullable<EvalResult["environment"]> {
  return {
    source: report.source,
    how: report.how,
    ready: report.failed === undefined,
    seconds: Math.round(report.readySeconds * 10) / 10,
    ...(report.failed ? { failed: report.failed } : {}),
  };
}

/** The way a run took and how its reproduction went, as results.jsonl records them. */
function describeWay(report: ReproductionReport): Pick<EvalResult, "way" | "reproduced" | "reproduction_passed"> {
  const way = report.choice.way;
  if (way === "static") return { way };
  return { way, reproduced: report.reproduced !== undefined, reproduction_passed: report.after ? report.after.outcome === "passed" : null };
}

/**
 * The history before the instance's base commit, as a job on that commit reads it: from the checkout's own `.git`,
 * else from the mirror the checkout was made from (`--prepare-from`); none without either, or when the config reads none.
 * Read once for the instance; a read that fails is logged (the instance's figures are then without it) and reads none.
 */
function instanceHistory(instance: BenchInstance, setup: InstanceSetup, checkout: string, config: MagisConfig): () => Promise<CommitRecord[]> {
  const window = historyWindow(config);
  const read = async (): Promise<CommitRecord[]> => {
    if (!window) return [];
    if (fs.existsSync(path.join(checkout, ".git"))) return readLocalHistory({ cwd: checkout }, window);
    if (setup.prepareFrom) return readLocalHistory({ gitDir: findMirror(setup.prepareFrom, instance.repo) }, window, instance.base_commit);
    return [];
  };
  let commits: Promise<CommitRecord[]> | null = null;
  return () =>
    (commits ??= read().catch((error: unknown) => {
      const reason = (error instanceof Error ? error.message : String(error)).split("\n")[0]!;
      setup.log(`${instance.instance_id}: the commit history was not read (${reason}); its files are ranked without it`);
      return [];
    }));
}

/** The files BM25 hands to the Custodian for the instance's issue, without a model (none when even that fails). */
async function rankOnly(root: string, instance: BenchInstance, config: MagisConfig, history: () => Promise<CommitRecord[]>): Promise<LocatedFile[]> {
  const noModel = { ask: () => Promise.reject(new Error("ranking only")) };
  try {
    return await locateFiles(
      { root, repoId: instance.repo, config, llm: noModel, now: Date.now, onProgress: () => undefined, history },
      issueOf(instance),
      null,
      { bm25Only: true },
    );
  } catch {
    return [];
  }
}

/** The issue as SWE-bench gives it: the problem statement's first line is the title, the hints one hint. */
function issueOf(instance: BenchInstance): IssueText {
  const [title = "", ...body] = instance.problem_statement.split("\n");
  return { title: title.trim(), body: body.join("\n"), hints: instance.hints_text?.trim() ? [instance.hints_text] : [] };
}

/** Makes the checkout from a mirror when asked; a failure to (no mirror, no such commit) is the instance's input failure. */
async function prepare(instance: BenchInstance, setup: InstanceSetup): Promise<EvalFailure | null> {
  if (!setup.prepareFrom) return null;
  try {
    const made = await prepareCheckout(instance, setup.prepareFrom, setup.repos);
    if (made) setup.log(made);
    return null;
  } catch (error) {
    return { stage: "input", reason: `could not make the checkout from ${setup.prepareFrom}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Why the checkout cannot be used for the instance, or null when it is there at the base commit. */
function checkCheckout(checkout: string, instance: BenchInstance): EvalFailure | null {
  if (!fs.statSync(checkout, { throwIfNoEntry: false })?.isDirectory()) {
    return {
      stage: "input",
      reason: `no checkout at ${checkout}: check out ${instance.repo} at ${instance.base_commit} there, or pass --prepare-from MIRRORS`,
    };
  }
  const commit = readCheckoutCommit(checkout);
  if (commit === null) {
    return {
      stage: "input",
      reason: `cannot tell which commit ${checkout} holds (no .git, no ${path.basename(checkout)}.base_commit beside it): remove it and pass --prepare-from MIRRORS, or make it a git checkout of ${instance.base_commit}`,
    };
  }
  if (commit !== instance.base_commit) {
    return {
      stage: "input",
      reason: `${checkout} is at ${commit}, not at the instance's base commit ${instance.base_commit}: check out ${instance.base_commit} there`,
    };
  }
  return null;
}

/**
 * Calls and tokens per agent from the instance's client (failed calls included), and their cost at the given prices:
 * each agent's tokens at its model's price, known only when every agent that made a call has one.
 */
function usageOf(llm: LlmClient | null, prices: InstanceSetup["prices"]): Pick<EvalResult, "tokens" | "by_prompt" | "calls" | "cost_usd"> {
  const stats = llm?.stats();
  const tokens = Object.fromEntries(
    AGENTS.map((agent): [string, AgentTokens] => {
      const used = stats?.byAgent[agent];
      return [agent, { prompt: used?.promptTokens ?? 0, completion: used?.completionTokens ?? 0, total: used?.totalTokens ?? 0, calls: used?.calls ?? 0 }];
    }),
  ) as EvalResult["tokens"];
  const dollars = AGENTS.map((agent) => (stats ? dollarsOf(stats.byAgent[agent], stats.byAgent[agent].model, prices) : undefined));
  const known = dollars.some((usd) => usd !== undefined) && AGENTS.every((agent, i) => !stats?.byAgent[agent].calls || dollars[i] !== undefined);
  const cost = known ? dollars.reduce<number>((sum, usd) => sum + (usd ?? 0), 0) : undefined;
  return {
    tokens,
    by_prompt: tokensByPrompt(llm?.trace ?? []),
    calls: stats?.calls ?? 0,
    ...(cost === undefined ? {} : { cost_usd: Math.round(cost * 1e6) / 1e6 }),
  };
}

/** The result of a line that never became an instance (malformed, a duplicate id): an input failure with nothing measured. */
export function inputFailureResult(instance_id: string, repo: string, reason: string): EvalResult {
  return {
    instance_id,
    repo,
    patch: false,
    applies: null,
    coverage: null,
    gold_files: [],
    located: [],
    kept: [],
    changed: [],
    recall_located: 0,
    recall_kept: 0,
    failure: { stage: "input", reason },
    ...usageOf(null, undefined),
    wall_ms: 0,
  };
}
