// The layers of src/, lowest first: lib; config; edit, llm, git, sandbox, language-servers and store (the store's interfaces);
// environment (a repository's declared environment, built in the sandbox and kept); pipeline; session (a job's record and its page); github
// (the GitHub adapter); jobs; triggers; backends; server; app; and the doors, cli and eval. A layer imports only
// those below it. docs/architecture.md draws them.
const above = (...layers) => `^src/(${layers.join("|")})/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A cycle makes two modules one: merge them or move what both need below them.",
      from: {},
      to: { circular: true },
    },
    {
      name: "lib-is-a-leaf",
      severity: "error",
      comment: "src/lib holds helpers every layer may use; it uses none of them.",
      from: { path: "^src/lib/" },
      to: { path: "^src/", pathNot: "^src/lib/" },
    },
    {
      name: "store-is-interfaces",
      severity: "error",
      comment: "src/store declares what a store does; the backends implement it.",
      from: { path: "^src/store/" },
      to: { path: "^src/", pathNot: "^src/(store|lib)/" },
    },
    {
      name: "parts-below-the-pipeline",
      severity: "error",
      comment: "Edits, the model client, git, the sandbox and the language servers know nothing of the pipeline or of the app around it.",
      from: { path: "^src/(edit|llm|git|sandbox|language-servers)/" },
      to: { path: above("pipeline", "github", "jobs", "triggers", "backends", "server", "app", "cli", "eval") },
    },
    {
      name: "environment-below-the-pipeline",
      severity: "error",
      comment: "A repository's environment is read, built in the sandbox and kept without knowing the pipeline or the app around it.",
      from: { path: "^src/environment/" },
      to: { path: above("pipeline", "github", "jobs", "triggers", "backends", "server", "app", "cli", "eval", "edit", "llm", "language-servers") },
    },
    {
      name: "environment-has-one-face",
      severity: "error",
      comment: "Outside src/environment, only its entry (index.ts) and its types (types.ts) are imported.",
      from: { path: "^src/", pathNot: "^src/environment/" },
      to: { path: "^src/environment/", pathNot: "^src/environment/(index|types)\\.ts$" },
    },
    {
      name: "sandbox-has-one-face",
      severity: "error",
      comment: "Outside src/sandbox, only its entry (index.ts) and its types (sandbox.ts) are imported: a backend's insides stay its own.",
      from: { path: "^src/", pathNot: "^src/sandbox/" },
      to: { path: "^src/sandbox/", pathNot: "^src/sandbox/(index|sandbox)\\.ts$" },
    },
    {
      name: "language-servers-have-one-face",
      severity: "error",
      comment:
        "Outside src/language-servers, only its entry (index.ts) and its types (types.ts) are imported: a server's spec, process and session stay inside.",
      from: { path: "^src/", pathNot: "^src/language-servers/" },
      to: { path: "^src/language-servers/", pathNot: "^src/language-servers/(index|types)\\.ts$" },
    },
    {
      name: "pipeline-has-one-face",
      severity: "error",
      comment:
        "Outside src/pipeline, only its entry (index.ts), what its stages hand back (types.ts, revise/types.ts) and its errors (errors.ts) are imported: a stage's insides stay inside.",
      from: { path: "^src/", pathNot: "^src/pipeline/" },
      to: { path: "^src/pipeline/", pathNot: "^src/pipeline/(index|types|errors|revise/types)\\.ts$" },
    },
    {
      name: "sandbox-below-language-servers",
      severity: "error",
      comment: "The language servers' jail is made with the sandbox's bubblewrap helpers (bindSystemDirs, findProgram); the sandbox knows nothing of them.",
      from: { path: "^src/sandbox/" },
      to: { path: "^src/language-servers/" },
    },
    {
      name: "pipeline-knows-no-door",
      severity: "error",
      comment: "The pipeline runs the same in every door: it never imports GitHub, jobs, triggers, backends, the app or a door.",
      from: { path: "^src/pipeline/" },
      to: { path: above("github", "jobs", "triggers", "backends", "server", "app", "cli", "eval") },
    },
    {
      name: "session-below-the-adapter",
      severity: "error",
      comment:
        "A job's session (its entries, their bounds, the page that shows them) is recorded and rendered without GitHub, the jobs, the store's backends or a door: every door shows the same page.",
      from: { path: "^src/session/" },
      to: { path: above("github", "jobs", "triggers", "backends", "server", "app", "cli", "eval") },
    },
    {
      name: "pipeline-records-no-session",
      severity: "error",
      comment: "The pipeline reports progress through its context; the jobs and the doors turn that into a session.",
      from: { path: "^src/pipeline/" },
      to: { path: "^src/session/" },
    },
    {
      name: "github-is-an-adapter",
      severity: "error",
      comment: "src/github talks to GitHub; what runs jobs and decides triggers uses it, not the other way round.",
      from: { path: "^src/github/" },
      to: { path: above("jobs", "triggers", "backends", "server", "app", "cli", "eval") },
    },
    {
      name: "github-uses-the-pipeline-types-only",
      severity: "error",
      comment: "src/github may name the pipeline's results (types.ts, errors.ts, revise/types.ts), not its entry: the adapter runs no stage.",
      from: { path: "^src/github/" },
      to: { path: "^src/pipeline/", pathNot: "^src/pipeline/(types|errors|revise/types)\\.ts$" },
    },
    {
      name: "octokit-only-in-github",
      severity: "error",
      comment:
        "GitHub is called only through the readers and writers of src/github: nothing else imports an @octokit package. eslint.config.js catches what this cannot see (octokit.rest calls, probot's ProbotOctokit).",
      from: { path: "^src/", pathNot: "^src/github/" },
      to: { path: "(^|/)@octokit/" },
    },
    {
      name: "jobs-below-triggers-and-backends",
      severity: "error",
      comment: "A job kind runs on any backend and from any trigger.",
      from: { path: "^src/jobs/" },
      to: { path: above("triggers", "backends", "server", "app", "cli", "eval") },
    },
    {
      name: "triggers-below-the-app",
      severity: "error",
      comment: "Trigger rules decide and queue; they never reach for a backend or the wiring.",
      from: { path: "^src/triggers/" },
      to: { path: above("backends", "server", "app", "cli", "eval") },
    },
    {
      name: "backends-hold-data-only",
      severity: "error",
      comment: "A backend stores and queues; it knows nothing of GitHub, the pipeline, triggers or the app.",
      from: { path: "^src/backends/" },
      to: { path: above("pipeline", "github", "triggers", "server", "app", "cli", "eval", "edit", "llm", "git") },
    },
    {
      name: "server-is-http-only",
      severity: "error",
      comment: "The HTTP servers serve what the app hands them.",
      from: { path: "^src/server/" },
      to: { path: above("pipeline", "github", "triggers", "backends", "app", "cli", "eval", "edit", "llm", "git") },
    },
    {
      name: "app-is-not-a-door",
      severity: "error",
      comment: "The wiring serves every door; the doors (cli, eval) call it.",
      from: { path: "^src/app/" },
      to: { path: above("cli", "eval") },
    },
    {
      name: "src-is-not-tests",
      severity: "error",
      comment: "The product does not import its tests, benchmarks or examples.",
      from: { path: "^src/" },
      to: { path: "^(test|bench|examples)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"], extensions: [".ts", ".js", ".json"] },
  },
};
