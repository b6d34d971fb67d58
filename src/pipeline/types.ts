import type { Agent, MagisConfig } from "../config.js";
import type { NetworkTally, Sandbox } from "../sandbox/sandbox.js";
import type { EnvironmentScope, EnvironmentShelf, EnvironmentSource, LayeredHow } from "../environment/types.js";
import type { FileEncoding } from "../edit/file-encoding.js";
import type { Llm, Usage } from "../llm/types.js";
import type { TestCounts } from "../lib/read-test-output.js";
import type { CommitRecord } from "../git/commit-history.js";
import type { JobIndex } from "./locate/open-job-index.js";
import type { LanguageServers } from "../language-servers/index.js";

/** The issue as the agents read it: already cleaned of hidden characters and HTML comments. */
export interface IssueText {
  title: string;
  body: string;
  /** Issue comments and `/magis retry` guidance (MAGIS "w/ hints"); may be empty. */
  hints: string[];
}

/** The issue as the stages take it: its text, and that text as every prompt shows it, formatted once where the pipeline is entered (see showIssue). */
export interface ShownIssue extends IssueText {
  /** formatIssue of the title, body and hints above. */
  shown: string;
}

/** A past commit, as a ranked file names the one most like the issue that changed it. */
export interface PastChange {
  oid: string;
  /** The first line of its message. */
  subject: string;
}

/** A file BM25 ranked for the issue. */
export interface RankedFile {
  path: string;
  score: number;
  /** The past commit most like the issue that changed this file, when the history lent it weight. */
  pastChange?: PastChange;
}

/** A ranked file after the Custodian looked at it; kept/reason are set once the relevance check ran. */
export interface LocatedFile extends RankedFile {
  summary?: string;
  kept?: boolean;
  reason?: string;
}

/** What the Manager asks of one file (MAGIS Algorithm 2, line "t_i"). */
export interface FileTask {
  path: string;
  description: string;
}

/**
 * A located file the Manager made no task of, and why: it needs no change; it cannot be opened (missing, binary, too
 * large, a link); or it needs a change but is protected, so a person must make it (`description` says what and why).
 */
export interface SetAsideFile {
  path: string;
  kind: "no-change" | "unopenable" | "needs-human";
  /** The Manager's reason (no change needed), the refusal (unopenable), or the change a person must make (needs a human). */
  description: string;
}

/** One Developer of the team: the task it owns and its persona. */
export interface DeveloperRole {
  name: string;
  path: string;
  role: string;
}

/** One speech of the kick-off meeting, in the order it was given. */
export interface MeetingTurn {
  speaker: string;
  text: string;
}

/** The main plan: steps run in order; the tasks (file paths) inside one step run concurrently. */
export interface Plan {
  steps: string[][];
  rationale: string;
  /** Set when the plan is not the Manager's own (e.g. the sequential fallback after an invalid plan), saying why. */
  note?: string;
}

/** A QA verdict on one attempt. */
export interface Review {
  approved: boolean;
  comment: string;
}

/** One Developer attempt at a task: the diff it produced or why it produced none, and QA's review. */
export interface Attempt {
  number: number;
  diff?: string;
  /** Why this attempt produced no reviewable change (edit refused, syntax error, …), as fed back to the Developer. */
  error?: string;
  /** What the repository's tests said with this change (and the earlier steps' kept changes), when they ran. */
  tests?: TestVerdict;
  /** The reproduction's run with this change (and the earlier steps' kept changes), on the dynamic way. */
  reproduction?: TestRun;
  /**
   * Set when that run was only advice to QA, not a condition of approval: the task ran beside others in its plan step,
   * so the reproduction may pass only with all their changes.
   */
  reproductionAdvisory?: true;
  /** Why the language server's check of this change did not run (the server failed or was too slow); absent when it ran or none applies. */
  checkSkipped?: string;
  review?: Review;
  /** With `candidates` over 1: the candidates this attempt sampled, their groups, and why the reviewed one was chosen. */
  candidates?: CandidateReport;
}

/** Candidates whose changes are the same once normalized (comments, whitespace, formatting dropped): one change, its votes. */
export interface CandidateGroup {
  /** The numbers of the candidates in the group (1-based, in the order they were sampled); its votes are their count. */
  members: number[];
  diff: string;
  /** The SHA-256 (hex) of the file's normalized text after the change (normalizeCode): what the group is, as eval compares it to the gold. */
  normalized: string;
  tests?: TestVerdict;
  reproduction?: TestRun;
  /** Why the group was filtered out (it breaks passing tests); absent when it survived. */
  out?: string;
}

/** What an attempt with several candidates did: how many it sampled, which failed and why, the groups, the choice. */
export interface CandidateReport {
  sampled: number;
  /** Candidates that gave no change (an edit that does not apply, a syntax error), with the reason fed back today. */
  dropped: { number: number; reason: string }[];
  /** Most votes first (ties in sampling order). */
  groups: CandidateGroup[];
  /** The index in `groups` of the change that went to review, absent when no group survived. */
  chosen?: number;
  /** Why it was chosen: the selector's reason, or that the votes decided. */
  why: string;
}

/**
 * The way a run resolves the issue (MarsCode Agent §3.1): `dynamic` reproduces it in the sandbox first and fixes against
 * the reproduction; `static` reads and reasons. The Manager chooses, after the files are located.
 */
export interface WayChoice {
  way: "dynamic" | "static";
  /** The Manager's reason, or why the dynamic way was not open (commands may not run here, reproduce_attempts is 0). */
  reason: string;
}

/** A script that shows the issue: where it is written in the copy, the command that runs it, and its text. */
export interface ReproductionScript {
  path: string;
  command: string;
  content: string;
  /** What its run shows while the issue is there, in the Reproducer's words. */
  expected: string;
}

/** One script the Reproducer wrote, its run on the untouched checkout, and whether it shows the issue and why. */
export interface ReproductionAttempt {
  number: number;
  script: ReproductionScript;
  run: TestRun;
  reproduced: boolean;
  reason: string;
}

/** The way a run took and, on the dynamic way, the reproduction: before the change, with it, and its verdict. */
export interface ReproductionReport {
  choice: WayChoice;
  /** The Reproducer the Manager designed, when the dynamic way was chosen. */
  reproducer?: { name: string; role: string };
  attempts: ReproductionAttempt[];
  /** The script the Developers worked against, with its failing run on the untouched checkout (absent: not reproduced). */
  reproduced?: { script: ReproductionScript; before: TestRun };
  /** Why the run went the static way after the dynamic way was chosen (the issue was not reproduced). */
  fallback?: string;
  /** The reproduction's run with the whole change. */
  after?: TestRun;
  /** Whether the reproduction went into the change as a regression test (`keep_reproduction: test`). */
  kept?: boolean;
  /** What held the scripts, when they ran: a short label and the sandbox's description. */
  sandbox?: { label: string; description: string };
  /** The environment the scripts ran in, when the repository declares one. */
  environment?: EnvironmentReport;
}

/**
 * The environment the repository's commands ran in, as built or reused for this run: where it was declared, which steps
 * ran, how long it took to be ready, what its setup reached, and whether it was kept for later jobs.
 */
export interface EnvironmentReport {
  /** Where the declaration was read from. */
  source: EnvironmentSource;
  /** `built`: the setup steps ran on a fresh copy; `reused`: a kept environment, with only the maintenance steps. */
  how: "built" | "reused";
  /** The names of the steps that ran, in order (the setup's, or the maintenance's when reused). */
  steps: string[];
  /** Seconds the steps took (setup when built, maintenance when reused). */
  stepSeconds: number;
  /** Seconds from opening the workbench until the commands could run in it (copying, the steps, keeping its state). */
  readySeconds: number;
  /** The start of the key it is kept under (12 hex digits). */
  key: string;
  /** What of the declaration MAGIS does not do, each as a sentence. */
  unsupported: string[];
  /** Other declarations found and not used. */
  shadowed: string[];
  /** The hosts the steps reached and were refused through the setup's proxy; absent when they had no network. */
  network?: NetworkTally;
  /**
   * Whether the environment was kept for later jobs: `kept`, or why not ("keeping is off", "it is bigger than
   * MAGIS_ENV_CACHE_MB", an error); absent while it is being kept, or when it was reused, failed or had no setup steps.
   */
  kept?: { kept: true } | { kept: false; why: string };
  /** Why the environment could not be made ready: the step that failed and how, or what of it could not be done. */
  failed?: string;
  /** The step that failed, by name, and its run. */
  failedStep?: { name: string; run: TestRun };
  /** Why the kept environment found was not used: its maintenance failed, so this one was built afresh. */
  maintenanceFailed?: string;
  /**
   * How a reused environment was laid under the job's copy: as an overlay's read-only lower layer (`overlay` as root,
   * `fuse-overlayfs` otherwise), or `copy`, with why no overlay could be mounted.
   */
  laid?: { how: LayeredHow; why?: string };
  /** The seconds of readySeconds by part, in order (see ReadyPhases). */
  phases?: ReadyPhases;
}

/** What a workbench's time to ready is made of, in seconds. */
export interface ReadyPhases {
  /** The copy made: the kept environment mounted (or copied) with the checkout laid over it, or the checkout copied. */
  laid: number;
  /** The copy and the home given to the sandbox's user, and a copied kept environment's files recorded. */
  prepared: number;
  /** The setup's or the maintenance's steps. */
  steps: number;
  /** The set-up state every run starts from kept: an overlay's set-up layer and its view mounted, or the copy walked and kept. */
  state: number;
}

/** One run of the repository's tests (or its setup command). */
export interface TestRun {
  /** `passed`: exit 0; `failed`: another exit status; `timed-out`: killed at `test_timeout_seconds`; `error`: could not run. */
  outcome: "passed" | "failed" | "timed-out" | "error";
  exitCode: number | null;
  /** The runner's own counts, when its summary line was recognised. */
  counts: TestCounts | null;
  /** Failing tests by name, when the runner's output names them. */
  failures: string[];
  /** The end of the output: ANSI codes and control characters removed, secrets redacted, bounded. */
  tail: string;
  durationMs: number;
  /** Why it did not run to an exit status. */
  error?: string;
}

/** A test run with a change, against the run on the untouched checkout. */
export interface TestVerdict {
  run: TestRun;
  /** Tests that fail with the change and did not fail before it. */
  newFailures: string[];
  /** Tests that failed before the change and do not with it. */
  fixed: string[];
  /** Why no change with this result may be approved (passing tests fail, or the tests no longer finish); absent when none. */
  breaks?: string;
}

/** The repository's tests in a run: the command, the run before the change and with it, or why they were not used. */
export interface TestsReport {
  command: string;
  setup?: string;
  /** Why the tests were not run or not used (code may not run here, the setup failed, the first run did not finish). */
  skipped?: string;
  /** What held the commands, when they ran: a short label ("in bubblewrap") and the sandbox's description. */
  sandbox?: { label: string; description: string };
  /** The setup command's run, when there was one. */
  setupRun?: TestRun;
  /** The run on the untouched checkout. */
  before?: TestRun;
  /** The run with the whole change, against `before`. */
  after?: TestVerdict;
  /** The environment the tests ran in, when the repository declares one. */
  environment?: EnvironmentReport;
}

/**
 * Whether the repository's own commands (`setup_command`, `test_command`) may run where this run happens, and in what:
 * a sandbox the door chose when it started (bubblewrap wherever it works), or none when nothing contains them here.
 */
export type CommandPolicy =
  | {
      allowed: true;
      /** What every command runs in. */
      sandbox: Sandbox;
      /** Values redacted from their output (tokens, keys), beyond the shapes of credentials. */
      secrets?: (string | undefined)[];
      /** Aborted when the job is cancelled or out of time: a running command is killed with everything it started. */
      signal?: AbortSignal;
      /** Where the copy the tests run in is made (default: a new folder in the system's temp directory). */
      scratchDir?: string;
      /** Where built environments are kept for later jobs and found again (absent: each job builds its own, keeps none). */
      environments?: EnvironmentShelf;
      /** Whose kept environments this run's are (default: `repoId`, with no installation). */
      scope?: EnvironmentScope;
    }
  | { allowed: false; why: string };

/** How one file-level task ended. */
export interface TaskOutcome {
  path: string;
  developer: DeveloperRole;
  qaRole: string;
  attempts: Attempt[];
  approved: boolean;
  /** Whether the task's last change is part of the result (approved, or kept by `keep_unapproved`). */
  kept: boolean;
  /** Unified diff of this file alone (empty when nothing was kept). */
  diff: string;
  before: string;
  after: string;
  /** How `before` was read from the file and how `after` is written back (decided when the file was opened). */
  encoding: FileEncoding;
}

/** Feedback a human reviewer left on a file; it becomes the first QA comment of that file's task. */
export interface FileFeedback {
  path: string;
  comments: { line?: number; startLine?: number; body: string; diffHunk?: string }[];
}

/** Stage events the CLI prints and the GitHub status comment shows. */
export type ProgressEvent =
  | { stage: "located"; files: LocatedFile[] }
  | { stage: "tasks"; tasks: FileTask[] }
  | { stage: "team"; developers: DeveloperRole[] }
  | { stage: "kickoff"; transcript: MeetingTurn[] }
  | { stage: "plan"; plan: Plan }
  | { stage: "tests"; tests: TestsReport }
  | { stage: "reproduction"; reproduction: ReproductionReport }
  | { stage: "attempt"; path: string; attempt: Attempt }
  | { stage: "task-done"; outcome: TaskOutcome }
  | { stage: "done"; result: ResolveResult };

/** Calls, tokens and models of a run, for the report. */
export interface UsageReport {
  calls: number;
  byAgent: Record<Agent, Usage & { calls: number; model: string }>;
  wallMs: number;
}

/** Everything a run produced: the repository-level change and the material of the report. */
export interface ResolveResult {
  /**
   * Unified diff of every kept file, applicable with `git apply` to the untouched checkout; empty when nothing changed.
   * Bytes, not text: each file's lines are in that file's own encoding.
   */
  patch: Buffer;
  /** Changed files with their full new text and the encoding it is written in (what publishing commits). */
  changes: { path: string; before: string; after: string; encoding: FileEncoding }[];
  located: LocatedFile[];
  tasks: FileTask[];
  /** The located files the Manager made no task of, with why; those of kind "needs-human" keep the issue open. */
  setAside: SetAsideFile[];
  developers: DeveloperRole[];
  transcript: MeetingTurn[];
  plan: Plan;
  outcomes: TaskOutcome[];
  /** The repository's tests before and with the change; absent when no `test_command` is set. */
  tests?: TestsReport;
  /** The way the run took and, on the dynamic way, the reproduction; absent for callers that skip the choice (revisions of old runs). */
  reproduction?: ReproductionReport;
  /** The environment the repository's commands ran in, when it declares one and they ran. */
  environment?: EnvironmentReport;
  usage: UsageReport;
}

/** What the Manager proposes before any code is written: the tasks, the team, the meeting and the main plan. */
export interface PlanProposal {
  tasks: FileTask[];
  developers: DeveloperRole[];
  transcript: MeetingTurn[];
  plan: Plan;
}

/**
 * A run that ended with a question instead of a change: the Manager judged that the issue does not say enough to act on
 * (what any reasonable reading needs is missing), so it asks the issue's author rather than guess. Not a failure.
 */
export interface QuestionResult {
  kind: "question";
  /** The question, in the Manager's words (Markdown the caller neutralizes). */
  question: string;
  located: LocatedFile[];
  /** The located files the Manager made no task of, with why (the ones it could not act on among them). */
  setAside: SetAsideFile[];
  usage: UsageReport;
}

/** The parts every stage may use, passed in so tests and the CLI run without GitHub. */
export interface StageContext {
  /** Absolute path of the checkout being worked on; never written to by the pipeline. */
  root: string;
  /** Stable id of the repository (e.g. `owner/name`, or a local path) that keys the evolution memory. */
  repoId: string;
  config: MagisConfig;
  llm: Llm;
  now: () => number;
  onProgress: (event: ProgressEvent) => void;
  /** Whether the repository's `test_command` may run here; absent: it may not (a library caller that did not say). */
  commands?: CommandPolicy;
  /**
   * The repository's recent commits (see CommitRecord), read when the Custodian ranks files; it may reject, which
   * costs the ranking this signal and nothing else. Absent: no history (a checkout without one).
   */
  history?: () => Promise<CommitRecord[]>;
  /**
   * The job's index (see openJobIndex): the files its clone wrote, handed once, which the Custodian lists rather than
   * read the work tree back, and the terms it learned meanwhile, through the store's cache and the process's memo.
   * Absent: the Custodian walks `root`, and indexes through the memory's cache alone (a library caller).
   */
  index?: JobIndex;
  /**
   * The job's language servers on `root` (see withLanguageServers): each attempt is checked with them and the callers
   * of what a task changes are shown. Absent: no semantic check and no callers (a library caller).
   */
  languageServers?: LanguageServers;
  /**
   * Where a person approves the plan before any Developer writes code (`plan_approval`): resolves with their guidance,
   * which the Developers get as a hint, or rejects (a StageError) when nobody approved in time. Absent: no wait.
   */
  approvePlan?: (proposal: PlanProposal) => Promise<{ guidance?: string }>;
}
