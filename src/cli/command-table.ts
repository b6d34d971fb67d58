import type { Command } from "./io.js";

/**
 * One subcommand of `magis` as `magis --help` lists it. Its module (and all it imports: the pipeline, the store, the
 * language servers, the app) is loaded only when the command runs or shows its own help, so that `magis --help` and a
 * command's start do not wait for every other command's modules.
 */
export interface CommandEntry {
  name: string;
  summary: string;
  load: () => Promise<Command>;
}

/** Every subcommand, in the order `magis --help` lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "locate",
    summary: "find the files an issue is about (BM25, evolution memory, relevance check)",
    load: async () => (await import("./locate.js")).locateCommand,
  },
  {
    name: "resolve",
    summary: "resolve an issue on a local checkout: patch.diff, report.md, trace.jsonl, session.html",
    load: async () => (await import("./resolve.js")).resolveCommand,
  },
  {
    name: "diagnose",
    summary: "print the language-server errors a patch adds to a checkout, as an attempt is judged",
    load: async () => (await import("./diagnose.js")).diagnoseCommand,
  },
  {
    name: "eval",
    summary: "measure the pipeline on SWE-bench-style issues: predictions, results, summary",
    load: async () => (await import("./eval.js")).evalCommand,
  },
  {
    name: "serve",
    summary: "run the GitHub App (--role all|web|worker; setup page first when APP_ID/PRIVATE_KEY are missing)",
    load: async () => (await import("./serve.js")).serveCommand,
  },
  {
    name: "action",
    summary: "run inside a GitHub Actions step: the workflow's event is the trigger",
    load: async () => (await import("./action.js")).actionCommand,
  },
  {
    name: "sandbox",
    summary: "check the sandbox the repository's commands run in: self-check and escape suite",
    load: async () => (await import("./sandbox.js")).sandboxCommand,
  },
  {
    name: "env",
    summary: "show or clear the environments kept for a local checkout",
    load: async () => (await import("./env.js")).envCommand,
  },
  {
    name: "session",
    summary: "export a job's session from the app's store as JSON Lines (magis session export ID)",
    load: async () => (await import("./session.js")).sessionCommand,
  },
];
