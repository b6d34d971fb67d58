import type { Agent } from "../config.js";

/** Why an instance produced no patch: the stage (a pipeline stage, or `input`/`crash` for what came before or broke it) and the reason. */
export interface EvalFailure {
  stage: string;
  reason: string;
}

/** Where an oracle run lost part of the gold patch, and why. */
export interface OracleLoss {
  /**
   * What lost it. The pipeline's, in its order: `new-file`, `deleted-file` (the pipeline only changes existing
   * files), `size-cap`, `not-located` (BM25 never handed it over), `not-kept`, `set-aside-<kind>`, `no-patch` (the
   * run failed before coding it), `edit-refused`, `syntax-refused`, `misplaced` (Eq. 1 below 1), `changed-text` (at
   * the gold lines, another text), and `not-applied` for the whole patch. The instrument's: `gold-not-placed` (a
   * gold hunk the oracle cannot place on the base file), `oracle-unanswered` (a call it failed), `gold-not-applied`
   * (git cannot apply the gold patch, so Eq. 1 is read from hunks), `unexplained` (the accounting itself failed).
   */
  cause: string;
  /** Whose loss it is: the pipeline's, or the instrument's (the oracle, the metric). */
  by: "pipeline" | "instrument";
  file: string;
  detail: string;
}

/** A gold hunk `git apply` finds away from its header's line: its number in the file (1-based) and by how many lines (+ lower). */
export interface HunkOffset {
  file: string;
  hunk: number;
  offset: number;
}

/** An oracle run accounted for: where the gold patch was lost and by whom, and the gold hunks `git apply` finds off their headers. */
export interface OracleAccount {
  losses: OracleLoss[];
  offsets: HunkOffset[];
}

/** Tokens of one agent in one instance. */
export interface AgentTokens {
  prompt: number;
  completion: number;
  total: number;
  calls: number;
}

/** Tokens of one prompt in one instance, with the agent that asks it. */
export interface PromptTokens extends AgentTokens {
  agent: Agent;
}

/** One line of results.jsonl: what one instance's run produced and how it measures against the gold patch. */
export interface EvalResult {
  instance_id: string;
  repo: string;
  /** Set on every result of an oracle run (answers from the gold patch): never a resolve rate. */
  oracle?: true;
  /** Whether the run produced a non-empty patch. */
  patch: boolean;
  /** Whether the predicted patch (UTF-8 text, as the harness gets it) applies with `git apply --check` to the untouched checkout; null without a patch. */
  applies: boolean | null;
  /** MAGIS Eq. 1 line coverage of the gold patch by this patch, in [0, 1]; null without a gold patch. */
  coverage: number | null;
  gold_files: string[];
  /** The files BM25 handed to the Custodian, in rank order. */
  located: string[];
  /** The located files the Custodian judged relevant. */
  kept: string[];
  /** The files the patch changes. */
  changed: string[];
  /** Share of the gold files among the located ones, and among the kept ones (MAGIS Eq. 4, as a fraction). */
  recall_located: number;
  recall_kept: number;
  failure: EvalFailure | null;
  /** The Manager's question, when it judged the issue did not say enough to act on and asked instead of patching (the oracle never does). */
  question?: string;
  tokens: Record<Agent, AgentTokens>;
  /** The same calls and tokens per prompt (custodian-summarize-file, …), with the agent asking it; absent from results written before it was kept. */
  by_prompt?: Record<string, PromptTokens>;
  calls: number;
  wall_ms: number;
  /** In US dollars, at MAGIS_MODEL_PRICES, --prices or --price-in/--price-out; absent unless every agent that made a call has a price. */
  cost_usd?: number;
  /** The way the run took (MarsCode Agent §3.1), when the Manager chose one. */
  way?: "dynamic" | "static";
  /** On the dynamic way: whether the Reproducer showed the issue, and whether the reproduction passed with the final change (null: not run). */
  reproduced?: boolean;
  reproduction_passed?: boolean | null;
  /**
   * With `--environments` (or a checkout that declares one) and `--allow-commands`: where the environment was declared,
   * whether it was built or a kept one reused, whether it became ready, in how many seconds, and why not.
   */
  environment?: { source: string; how: "built" | "reused"; ready: boolean; seconds: number; failed?: string };
  /**
   * With `candidates` over 1: the candidates the attempts sampled, the distinct groups they made, and per attempt that
   * chose one, the chosen group's rank by votes (1: most votes; groups with as many votes share a rank), and whether a
   * candidate left every gold file as the gold patch does once normalized (see findGoldCandidate; absent when the gold
   * patch could not be applied to the checkout).
   */
  candidates?: { sampled: number; groups: number; chosen_ranks: number[]; gold_equivalent?: boolean };
  /** Oracle runs: where the gold patch was lost, one entry per cause and file; empty when nothing was. */
  losses?: OracleLoss[];
  /** Oracle runs: the gold hunks placed away from their headers' lines, as `git apply` places them; empty when none. */
  gold_offsets?: HunkOffset[];
}

/** One line of predictions.jsonl, in SWE-bench's format. */
export interface Prediction {
  instance_id: string;
  model_name_or_path: string;
  /** The patch; empty for an instance that produced none, so the harness counts it as unresolved. */
  model_patch: string;
}
