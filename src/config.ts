import { globProblem } from "./lib/glob.js";
import { refNameProblem } from "./lib/ref-name.js";
import { isIP } from "node:net";
import { z } from "zod";
import { ConfigError, type ConfigProblem } from "./config-error.js";

// In a file of its own, so that what only catches it (the command line's door) does not load zod.
export { ConfigError, type ConfigProblem };

/** The agents of MAGIS; each may run on its own model. */
export const AGENTS = ["custodian", "manager", "developer", "qa"] as const;
export type Agent = (typeof AGENTS)[number];

/**
 * What the bot never changes by default: files that decide what CI and release jobs run and with which secrets, code that
 * runs on a maintainer's machine on checkout, commit or open, who must review, and the bot's own config. Package
 * manifests (package.json, pyproject.toml, setup.py, …) are left out on purpose: they are what many real issues are about
 * (see "Protected paths" in the README).
 */
export const DEFAULT_PROTECTED_PATHS = [
  // GitHub: workflows, composite actions, this bot's config, CODEOWNERS, dependabot; an action a workflow runs as `./`.
  ".github/**",
  "**/CODEOWNERS",
  "**/action.yml",
  "**/action.yaml",
  // Other CI systems (their files at the root, or anywhere where CI reads nested ones).
  ".gitlab-ci.yml",
  "**/*.gitlab-ci.yml",
  ".gitlab/**",
  ".circleci/**",
  ".travis.yml",
  "azure-pipelines.yml",
  "**/azure-pipelines*.yml",
  ".azure-pipelines/**",
  "**/Jenkinsfile",
  "**/Jenkinsfile.*",
  ".buildkite/**",
  "bitbucket-pipelines.yml",
  ".drone.yml",
  "appveyor.yml",
  ".appveyor.yml",
  ".cirrus.yml",
  ".woodpecker.yml",
  ".woodpecker.yaml",
  ".woodpecker/**",
  // Hosted builds and deploys that run their own commands with the project's deploy secrets.
  "**/netlify.toml",
  ".readthedocs.yaml",
  ".readthedocs.yml",
  // Build and release definitions CI runs as given, wherever they sit (a docker/Dockerfile, a sub-project's Makefile).
  "**/Makefile",
  "**/GNUmakefile",
  "**/Makefile.in",
  "**/*.mk",
  "**/CMakeLists.txt",
  "**/Dockerfile",
  "**/Dockerfile.*",
  "**/*.dockerfile",
  "**/Containerfile",
  "**/Containerfile.*",
  "**/docker-compose.yml",
  "**/docker-compose.yaml",
  "**/compose.yml",
  "**/compose.yaml",
  ".goreleaser.yml",
  ".goreleaser.yaml",
  "**/tox.ini",
  "**/noxfile.py",
  ".pre-commit-config.yaml",
  // Code a maintainer's tools run on commit or when the folder is opened (direnv runs .envrc in the shell).
  ".husky/**",
  ".devcontainer/**",
  ".vscode/**",
  "**/.envrc",
  // Package managers' own settings: registries, credentials, the program they run (yarnPath), Cargo's build wrappers.
  "**/.npmrc",
  "**/.yarnrc",
  "**/.yarnrc.yml",
  "**/.cargo/config",
  "**/.cargo/config.toml",
  // Where submodules come from.
  ".gitmodules",
] as const;

/** The most globs one list (`exclude`, `protected_paths`) may hold: each is tried against every path of the repository. */
const MAX_PATTERNS = 200;

/** A glob of repository paths, as src/lib/glob.ts matches them: bounded, so no pattern can stall the app. */
const globPattern = z
  .string()
  .min(1)
  .superRefine((pattern, ctx) => {
    const problem = globProblem(pattern);
    // The entry is named by its place in the list, never quoted: a config's text can @mention people in the answer.
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

const permission = z.enum(["read", "triage", "write", "maintain", "admin"]);

/**
 * The language-server rules whose new errors refuse an attempt by default: those that mean broken code (a name defined
 * nowhere, a call the callee cannot take), chosen by `npm run bench:diagnostics` (docs/benchmarks.md), not the type
 * checker's opinions on untyped code.
 */
export const DEFAULT_REFUSE_RULES = {
  python: ["reportUndefinedVariable", "reportCallIssue", "syntax"],
  typescript: ["2304", "2552", "2554", "2555", "2305", "2724"],
} as const;

/** How a variable a repository sets must be named: letters, digits and `_`, not starting with a digit, at most 64. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** The most variables one list (`test_env`, `environment.env`) may hold, and the longest value. */
export const MAX_VARIABLES = 50;
export const MAX_VARIABLE_LENGTH = 4096;

/** Non-secret variables a repository's commands get: bounded in number and length, named as a shell takes them. */
const variables = z
  .record(z.string().regex(VARIABLE_NAME, "must be a variable name: letters, digits and _, not starting with a digit"), z.string().max(MAX_VARIABLE_LENGTH))
  .refine((env) => Object.keys(env).length <= MAX_VARIABLES, `may hold at most ${MAX_VARIABLES} variables`);

const HOST_LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

/**
 * Why a host pattern of `environment.network` is refused, or null when it is taken: a host name (`example.com`), a
 * wildcard of its subdomains (`*.example.com`) or an IP address (`[…]` around an IPv6 one that has a port), optionally
 * with `:port`. Only the shape is checked; the setup's proxy does the matching.
 */
export function hostPatternProblem(pattern: string): string | null {
  const shape = "must be a host (example.com), a wildcard of its subdomains (*.example.com) or an IP address, optionally with :port";
  let host = pattern;
  let port: string | undefined;
  const bracketed = /^\[([^\]]*)\](?::([^:]*))?$/.exec(pattern);
  if (bracketed) {
    if (isIP(bracketed[1]!) !== 6) return `${shape}; inside [ ] goes an IPv6 address`;
    port = bracketed[2];
  } else if (isIP(pattern) === 6) {
    return null;
  } else if (pattern.includes(":")) {
    const at = pattern.lastIndexOf(":");
    host = pattern.slice(0, at);
    port = pattern.slice(at + 1);
  }
  if (port !== undefined && !(/^[0-9]{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
    return `${shape}; the port must be a number from 1 to 65535`;
  }
  if (bracketed || isIP(host) === 4) return null;
  if (host.length > 253) return `${shape}; a host name has at most 253 characters`;
  const labels = host.split(".");
  const named = labels[0] === "*" ? labels.slice(1) : labels;
  if (named.length === 0 || !named.every((label) => HOST_LABEL.test(label))) return shape;
  if (/^[0-9]+$/.test(named.at(-1)!)) return `${shape}; this is neither an IPv4 address nor a host name`;
  if (labels[0] === "*" && named.length < 2) return `${shape}; a wildcard needs a domain of at least two labels (*.example.com)`;
  return null;
}

/** One command or several, each a shell line run at the repository's root. */
const command = z.string().trim().min(1, "is blank: give a shell command, or remove it");
const commands = z.union([command, z.array(command).min(1, "is an empty list: give a command, or remove the key").max(50)], {
  error: (issue) => (issue.code === "invalid_union" ? "must be a shell command, or a list of them run in order" : undefined),
});

/** The `environment:` key: how the repository's code is set up, first among the places an environment is read from. */
const environmentSchema = z
  .object({
    setup: commands
      .optional()
      .describe(
        "The commands that set the environment up (e.g. `pip install -e .`, `npm ci`), in order, in the sandbox at the repository's root, with the network `network` allows; run once, and the environment they make is kept for later jobs.",
      ),
    maintenance: commands
      .optional()
      .describe("The commands run, in order, when a kept environment is reused on newer code (e.g. `npm ci` again), with the same network as the setup."),
    env: variables.optional().describe("Non-secret variables the setup, the tests and the reproductions get. The file is public: put no secret here."),
    key_files: z
      .array(globPattern)
      .max(MAX_PATTERNS)
      .optional()
      .describe(
        "The files (paths or globs) whose change makes a kept environment stale, so it is built afresh. Default: the manifests and lockfiles of the ecosystems found in the tree (package.json, package-lock.json, pyproject.toml, requirements*.txt, go.mod, Cargo.lock, …).",
      ),
    network: z
      .array(
        z
          .string()
          .min(1)
          .superRefine((pattern, ctx) => {
            const problem = hostPatternProblem(pattern);
            if (problem) ctx.addIssue({ code: "custom", message: problem });
          }),
      )
      .max(100)
      .optional()
      .describe(
        "The hosts the setup may reach (`pypi.org`, `*.npmjs.org`, `example.com:8443`), within those the operator allows (MAGIS_SETUP_ALLOW_HOSTS): it can only narrow them. Default: whatever the operator allows.",
      ),
  })
  .strict();

/**
 * Longest a job with `plan_approval` may last, its run and its wait for approval together, in minutes. Under PostgreSQL
 * graphile-worker takes a job it locked more than 4 hours ago for stuck: it unlocks the job and the issue's line, runs
 * the job again beside the one still waiting, and the issue's next job starts beside them. The 10 minutes short of 4
 * hours are for what a job does outside its time limit (the status comment, the record, stopping its commands).
 */
export const MAX_JOB_LIFE_MINUTES = 230;

/**
 * The schema of `.github/magis.yml`. Every field has a default, so an empty file is a valid config. Each field's
 * description is its documentation: docs/configuration.md and the editors' JSON Schema are generated from it.
 */
export const configSchema = z
  .object({
    label: z.string().min(1).default("magis").describe("The issue label that starts a run."),
    branch_prefix: z
      .string()
      .min(1)
      .regex(/^[A-Za-z0-9._/-]+$/, "use letters, digits, '.', '_', '-' and '/' only")
      .superRefine((prefix, ctx) => {
        // Checked as the branches it makes (`<prefix>issue-12`): git would refuse them at the first push.
        const problem = refNameProblem(`${prefix}issue-1`);
        if (problem) ctx.addIssue({ code: "custom", message: `git refuses branch names made from it (\`${prefix}issue-1\`): ${problem}` });
      })
      .default("magis/")
      .describe("Prefix of the branches the bot creates; the bot never pushes to a branch without it."),
    draft: z.boolean().default(false).describe("Open pull requests as drafts."),
    top_k: z.number().int().min(1).max(100).default(10).describe("How many files BM25 hands to the Custodian's relevance check (MAGIS top-k)."),
    qa_iterations: z.number().int().min(1).max(10).default(3).describe("Most Developer attempts per file-level task before giving up (MAGIS n_max)."),
    candidates: z
      .number()
      .int()
      .min(1)
      .max(8)
      .default(1)
      .describe(
        "Candidate changes each Developer attempt samples; with more than 1 they are grouped by their tree-sitter-normalized text (votes), groups that break passing tests are dropped, those that make the reproduction pass come first, and the QA Engineer selects one for review. They are asked in one request (the API's `n`, the prompt paid once) where the server supports it, else one by one, each then costing an attempt's tokens.",
      ),
    keep_unapproved: z.boolean().default(false).describe("Keep the last change of a task the QA Engineer never approved (marked as such in the report)."),
    reproduce_attempts: z
      .number()
      .int()
      .min(0)
      .max(10)
      .default(3)
      .describe(
        "Most scripts the Reproducer writes to show the issue before the run gives up the dynamic way (reproduce, fix against the reproduction, verify) for the static one; 0 never takes the dynamic way.",
      ),
    keep_reproduction: z
      .enum(["off", "test"])
      .default("off")
      .describe(
        "`test`: the reproduction is added to the change as a regression test in the repository's test layout. `off`: it is shown in the pull request, not committed.",
      ),
    concurrency: z.number().int().min(1).max(16).default(3).describe("Most coding tasks that run at the same time within one step of the plan."),
    model: z
      .string()
      .min(1)
      .optional()
      .describe("The model of every agent, unless set per agent in `models`; the MAGIS_MODEL environment variable wins over it (default gpt-4o-mini)."),
    models: z
      .object({
        custodian: z.string().min(1).optional().describe("Model of the Repository Custodian (summaries and relevance)."),
        manager: z.string().min(1).optional().describe("Model of the Manager (tasks, roles, kick-off meeting, plan)."),
        developer: z.string().min(1).optional().describe("Model of the Developers (line ranges and new code)."),
        qa: z.string().min(1).optional().describe("Model of the QA Engineers (reviews)."),
      })
      .strict()
      .default({})
      .describe("A model per agent, overriding `model`; MAGIS_MODEL_<AGENT> wins over it."),
    token_budget: z
      .number()
      .int()
      .min(1000)
      .max(50_000_000)
      .default(400_000)
      .describe("Most tokens (prompt + completion) one job may spend; the call that would pass it is not made. MAGIS_TOKEN_BUDGET wins over it."),
    cost_budget_usd: z
      .number()
      .positive()
      .max(100_000)
      .optional()
      .describe(
        "Most US dollars one job may spend, at the prices the app's operator set (MAGIS_MODEL_PRICES); the call that would pass it is not made, and a job whose models have no price does not start. Within the operator's MAGIS_MAX_COST_USD: a higher value leaves that bound.",
      ),
    job_timeout_minutes: z
      .number()
      .positive()
      .max(4 * 60)
      .default(30)
      .describe("Longest a job may run, in minutes (fractions allowed); past it the job stops where it is, says in which stage, and pushes nothing."),
    plan_approval: z
      .boolean()
      .default(false)
      .describe(
        "Whether a job waits, after the kick-off and the plan, for `/magis go [guidance]` (or the session page's button) from someone allowed to trigger before any Developer writes code.",
      ),
    plan_approval_minutes: z
      .number()
      .positive()
      .max(200)
      .default(60)
      .describe(
        `With \`plan_approval\`, how long a job waits for the approval, in minutes (fractions allowed); the wait does not count against \`job_timeout_minutes\`. Past it the job ends without writing code. With \`job_timeout_minutes\` it may add up to ${MAX_JOB_LIFE_MINUTES} at most: under PostgreSQL a job that runs past 4 hours is taken for stuck and run again beside itself.`,
      ),
    protected_paths: z
      .array(globPattern)
      .max(MAX_PATTERNS)
      .default([...DEFAULT_PROTECTED_PATHS])
      .describe(
        'Glob patterns of files the bot must never change; a change the Manager finds one needs is reported in the pull request as "needs a human". Setting this replaces the default list rather than adding to it.',
      ),
    exclude: z.array(globPattern).max(MAX_PATTERNS).default([]).describe("Glob patterns of files the Custodian never considers."),
    history_months: z
      .number()
      .int()
      .min(0)
      .max(120)
      .default(12)
      .describe(
        "How many months of the repository's history the Custodian reads before ranking files (the commits' messages and the files they changed, never their contents): past changes like the issue point at the files they changed. 0 reads none. At most 5,000 commits, the newest, are kept.",
      ),
    max_file_bytes: z
      .number()
      .int()
      .min(1024)
      .max(8 * 1024 * 1024)
      .default(512 * 1024)
      .describe("Largest file, in bytes, that is indexed and may be edited."),
    max_repo_mb: z.number().int().min(1).max(4096).default(500).describe("Largest repository, in megabytes of packed history, the bot clones."),
    allowed_permissions: z
      .array(permission)
      .min(1)
      .default(["write", "maintain", "admin"])
      .describe(
        "Repository permissions whose holders may trigger the bot. `read` lets anyone trigger it on a public repository (GitHub gives every user read there): each run's status comment then says so.",
      ),
    hint_authors: z
      .enum(["trusted", "everyone"])
      .default("trusted")
      .describe(
        "Whose issue comments reach the agents as hints: `trusted`, the issue's author and the repository's owners, members and collaborators (or anyone holding one of `allowed_permissions`); or `everyone` who commented (on a public repository, any GitHub user can then steer the run).",
      ),
    test_command: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe(
        "The command that runs the repository's tests (e.g. `npm test`, `pytest -q tests/test_x.py`), in a shell at the repository's root. It runs in the sandbox MAGIS_SANDBOX chooses (bubblewrap by default; on an App server where none works it does not run) on the untouched checkout and after every Developer attempt; the QA Engineer may not approve an attempt that makes a passing test fail.",
      ),
    setup_command: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe(
        "The environment's setup as one command (e.g. `npm ci`, `pip install -e .`), when nothing else declares it (`environment:`, `.devcontainer/devcontainer.json`, `.github/workflows/copilot-setup-steps.yml` come first): run in the sandbox before the tests and the reproductions; if it fails, the run goes on without them.",
      ),
    environment: environmentSchema
      .optional()
      .describe(
        "How the repository's code is set up: read first, before `.devcontainer/devcontainer.json`, `.devcontainer.json`, `.github/workflows/copilot-setup-steps.yml` and `setup_command`. The environment is built once in the sandbox, kept, and every job's tests and reproductions run in it.",
      ),
    test_timeout_seconds: z
      .number()
      .int()
      .min(1)
      .max(3600)
      .default(300)
      .describe("Longest the setup command, or one run of the tests, may take; past it the command is stopped with everything it started."),
    test_env: variables
      .default({})
      .describe(
        "Variables the setup and test commands get beside PATH, HOME, LANG, TMPDIR and CI=true (e.g. `DJANGO_SETTINGS_MODULE: tests.settings`). They run in a sandbox whose environment holds nothing else: no token or key of the bot's. The file is public: put no secret here.",
      ),
    diagnostics: z
      .object({
        enabled: z
          .boolean()
          .default(true)
          .describe(
            "Check each Developer attempt with a language server (Pyright for Python, the TypeScript server for JavaScript and TypeScript) and refuse one that adds an error of `refuse_rules`, as a new syntax error is refused.",
          ),
        refuse_rules: z
          .object({
            python: z
              .array(z.string().min(1))
              .max(100)
              .default([...DEFAULT_REFUSE_RULES.python])
              .describe("Pyright rules (`reportUndefinedVariable`, …; `syntax` for errors without a rule) whose new errors refuse an attempt."),
            typescript: z
              .array(z.string().min(1))
              .max(100)
              .default([...DEFAULT_REFUSE_RULES.typescript])
              .describe("TypeScript error codes (`2304`, …; `syntax` for errors without a code) whose new errors refuse an attempt."),
          })
          .strict()
          .default({ python: [...DEFAULT_REFUSE_RULES.python], typescript: [...DEFAULT_REFUSE_RULES.typescript] })
          .describe(
            "The rules whose new errors mean broken code, per language; an empty list turns refusals off for that language, while its callers are still shown. Setting a list replaces the default.",
          ),
        timeout_seconds: z
          .number()
          .int()
          .min(1)
          .max(600)
          .default(60)
          .describe(
            "Longest a language server may take to start, or to check one file; past it, that server's checks are skipped for the job (the report says so).",
          ),
        memory_mb: z.number().int().min(128).max(8192).default(1536).describe("Heap limit, in megabytes, of each language server process."),
      })
      .strict()
      .default({
        enabled: true,
        refuse_rules: { python: [...DEFAULT_REFUSE_RULES.python], typescript: [...DEFAULT_REFUSE_RULES.typescript] },
        timeout_seconds: 60,
        memory_mb: 1536,
      })
      .describe("The semantic check of each attempt by a language server, and the callers shown with a changed definition."),
    ci_fix_attempts: z
      .number()
      .int()
      .min(0)
      .max(5)
      .default(2)
      .describe(
        "How many times in a row the bot tries to fix its own pull request when CI fails on its latest commit (0 turns it off); after the last, one comment says what still fails.",
      ),
  })
  .strict()
  .superRefine((config, ctx) => {
    const life = config.job_timeout_minutes + config.plan_approval_minutes;
    if (!config.plan_approval || life <= MAX_JOB_LIFE_MINUTES) return;
    ctx.addIssue({
      code: "custom",
      path: ["plan_approval_minutes"],
      message: `with plan_approval, job_timeout_minutes (${config.job_timeout_minutes}) and plan_approval_minutes (${config.plan_approval_minutes}) add up to ${life} minutes, more than the ${MAX_JOB_LIFE_MINUTES} a job may last in all (under PostgreSQL a job past 4 hours is taken for stuck and run again beside itself): lower one of them so they add up to ${MAX_JOB_LIFE_MINUTES} at most`,
    });
  })
  .meta({ title: "MAGIS repository config (.github/magis.yml)", description: "How MAGIS works on this repository. Every key is optional." });

export type MagisConfig = z.infer<typeof configSchema>;

/** Validates raw config data (already parsed from YAML); returns the config with defaults or throws a ConfigError listing every problem. */
export function parseConfig(raw: unknown, source?: string): MagisConfig {
  const result = configSchema.safeParse(raw ?? {});
  if (result.success) return result.data;
  throw new ConfigError(
    // A record's bad key is reported by zod as "Invalid key in record"; the key's own rule says what is wrong.
    result.error.issues.map((issue) => ({
      path: issue.path.join("."),
      message: issue.code === "invalid_key" ? (issue.issues[0]?.message ?? issue.message) : issue.message,
    })),
    source,
  );
}

/** The model names the environment sets (MAGIS_MODEL, MAGIS_MODEL_<AGENT>: the settings' `model` part). */
export interface ModelNames {
  model?: string;
  agentModels: Partial<Record<Agent, string>>;
}

/** The model an agent runs on: MAGIS_MODEL_<AGENT>, then the per-agent config, then MAGIS_MODEL, then `model`. */
export function modelFor(agent: Agent, config: MagisConfig, names: ModelNames): string {
  return names.agentModels[agent] || config.models[agent] || names.model || config.model || "gpt-4o-mini";
}

/**
 * What a valid config allows that a maintainer may not have meant, said on each run's status comment: `read` among
 * `allowed_permissions` lets any GitHub user trigger runs on a public repository (GitHub answers `read` for anyone
 * there), spending the operator's model budget on whatever they write.
 */
export function configWarnings(config: Pick<MagisConfig, "allowed_permissions">): string[] {
  if (!config.allowed_permissions.includes("read")) return [];
  return [
    "`allowed_permissions` includes `read`: on a public repository anyone with a GitHub account can start runs. Remove `read` from `.github/magis.yml` unless that is meant.",
  ];
}
