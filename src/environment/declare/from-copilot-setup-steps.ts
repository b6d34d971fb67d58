import path from "node:path";
import { parseDocument } from "yaml";
import { MAX_VARIABLE_LENGTH, VARIABLE_NAME } from "../../config.js";
import type { EnvironmentDeclaration, EnvironmentStep } from "../types.js";
import { DeclarationError } from "./declaration-error.js";
import { quoteForShell } from "./quote-for-shell.js";
import { readDeclarationFile } from "./read-plain-file.js";
import type { SourceDeclaration } from "./source-declaration.js";

/** The workflow GitHub's Copilot coding agent reads its setup from, and the job in it. */
export const COPILOT_SETUP_FILE = ".github/workflows/copilot-setup-steps.yml";
const JOB = "copilot-setup-steps";

/** An expression GitHub evaluates before the step runs (`${{ secrets.X }}`); MAGIS does not evaluate them. */
const EXPRESSION = /\$\{\{/;

/** How GitHub runs a `run:` step on Linux for each `shell:` MAGIS takes; none given is bash with `-e`. */
const SHELLS: Record<string, string> = {
  "": "bash -e -c",
  bash: "bash --noprofile --norc -eo pipefail -c",
  sh: "/bin/sh -e -c",
};

/** Job keys that concern GitHub's runner alone, with nothing for the environment: passed over without a word. */
const RUNNER_KEYS = new Set(["name", "runs-on", "permissions", "timeout-minutes", "steps", "env", "defaults", "container"]);

type Mapping = Record<string, unknown>;
const isMap = (value: unknown): value is Mapping => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * The `copilot-setup-steps` job of the workflow as the environment it declares: its `run:` steps in order, each with
 * its step's `env:` exported and its `working-directory` entered; the workflow's and the job's `env:` as the
 * environment's variables; the job's `container` image. `uses:` steps, expressions (`${{ … }}`) and other shells are
 * named in `unsupported`, never run. Throws a DeclarationError for a file that is not such a workflow.
 */
export function fromCopilotSetupSteps(root: string): SourceDeclaration {
  const file = COPILOT_SETUP_FILE;
  const workflow = parseWorkflow(readDeclarationFile(root, file));
  const jobs = isMap(workflow.jobs) ? workflow.jobs : {};
  const job = jobs[JOB];
  if (!isMap(job)) {
    throw new DeclarationError(
      file,
      `has no \`${JOB}\` job`,
      `Name the job that sets the environment up \`${JOB}\` (GitHub's Copilot reads only that one), or declare the environment under \`environment:\` in .github/magis.yml`,
    );
  }
  if (!Array.isArray(job.steps)) throw new DeclarationError(file, `the \`${JOB}\` job has no \`steps:\` list`, "Give it the steps that set the environment up");
  const unsupported: string[] = [];
  const env = { ...variables(workflow.env, "env", unsupported), ...variables(job.env, `jobs.${JOB}.env`, unsupported) };
  const runDefaults = { ...runDefaultsOf(workflow), ...runDefaultsOf(job) };
  const setup = job.steps.flatMap((step: unknown, at: number) => {
    const made = stepOf(step, at, runDefaults, unsupported);
    return made ? [made] : [];
  });
  for (const key of Object.keys(job))
    if (!RUNNER_KEYS.has(key)) unsupported.push(`\`jobs.${JOB}.${key}\` is not used: MAGIS runs the job's \`run:\` steps alone`);
  const image = imageOf(job.container, unsupported);
  return { source: file, setup, maintenance: [], env, keyFiles: null, network: null, ...(image ? { image } : {}), unsupported, ownFiles: [file] };
}

function parseWorkflow(text: string): Mapping {
  const document = parseDocument(text);
  const fix = "Fix the workflow (GitHub would refuse it too), or declare the environment under `environment:` in .github/magis.yml, which is read first";
  const error = document.errors[0];
  if (error) {
    const at = error.linePos?.[0];
    throw new DeclarationError(COPILOT_SETUP_FILE, `${at ? `line ${at.line}, column ${at.col}: ` : ""}${error.message.split(/ at line \d+|\n/)[0]}`, fix);
  }
  const workflow: unknown = document.toJS();
  if (!isMap(workflow)) throw new DeclarationError(COPILOT_SETUP_FILE, "does not hold a workflow (a map with `jobs:`)", fix);
  return workflow;
}

/** A `run:` step as a setup step, or null for one that is not run (named in `unsupported`). */
function stepOf(step: unknown, at: number, defaults: { shell?: unknown; "working-directory"?: unknown }, unsupported: string[]): EnvironmentStep | null {
  if (!isMap(step)) throw new DeclarationError(COPILOT_SETUP_FILE, `step ${at + 1} of the \`${JOB}\` job is not a map`, "Give each step `run:` or `uses:`");
  const name = typeof step.name === "string" && step.name.trim() ? `step “${step.name.trim().slice(0, 100)}”` : `steps[${at + 1}]`;
  if (typeof step.uses === "string") {
    const why = step.uses.startsWith("actions/checkout@")
      ? "the checkout is already there"
      : "MAGIS runs only `run:` steps; install what it sets up in a `run:` step";
    unsupported.push(`\`${step.uses}\` (${name}) is not run: ${why}`);
    return null;
  }
  if (typeof step.run !== "string" || !step.run.trim()) {
    unsupported.push(`${name} is not run: it has neither \`run:\` nor \`uses:\``);
    return null;
  }
  if (EXPRESSION.test(step.run)) {
    unsupported.push(`${name} is not run: its \`run:\` uses \`\${{ … }}\`, which MAGIS does not evaluate`);
    return null;
  }
  const shell = step.shell ?? defaults.shell ?? "";
  const runWith = typeof shell === "string" ? SHELLS[shell] : undefined;
  if (!runWith) {
    unsupported.push(`${name} is not run: its \`shell:\` is not bash or sh`);
    return null;
  }
  const lines: string[] = [];
  const directory = step["working-directory"] ?? defaults["working-directory"];
  if (directory !== undefined) {
    if (typeof directory !== "string" || EXPRESSION.test(directory)) {
      unsupported.push(`${name} is not run: its \`working-directory\` is not a plain path`);
      return null;
    }
    const inside = path.posix.normalize(directory);
    if (path.posix.isAbsolute(inside) || inside === ".." || inside.startsWith("../")) {
      throw new DeclarationError(
        COPILOT_SETUP_FILE,
        `${name} has a \`working-directory\` outside the repository`,
        "Setup runs inside the checkout: give a path relative to the repository's root",
      );
    }
    if (inside !== ".") lines.push(`cd ${quoteForShell(inside)} || exit 1`);
  }
  for (const [variable, value] of Object.entries(variables(step.env, "env", unsupported, `${name}: `)))
    lines.push(`export ${variable}=${quoteForShell(value)}`);
  if (step.if !== undefined) unsupported.push(`${name}: its \`if:\` is not evaluated; the step runs`);
  const run = `${runWith} ${quoteForShell(step.run)}`;
  lines.push(step["continue-on-error"] === true ? `${run} || echo ${quoteForShell(`${name} failed; continue-on-error lets the setup go on`)} >&2` : run);
  return { name, command: lines.join("\n") };
}

/** An `env:` map's variables; names the shell cannot take, values that are expressions, are named and left out. */
function variables(declared: unknown, where: string, unsupported: string[], owner = ""): Record<string, string> {
  if (declared === undefined) return {};
  if (!isMap(declared)) {
    unsupported.push(`${owner}\`${where}\` is not used: it is not a map of variables`);
    return {};
  }
  const taken: Record<string, string> = {};
  for (const [name, value] of Object.entries(declared)) {
    const text = typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : null;
    if (!VARIABLE_NAME.test(name))
      unsupported.push(`${owner}\`${where}\` holds a variable MAGIS cannot set: names are letters, digits and _, not starting with a digit`);
    else if (text === null) unsupported.push(`${owner}\`${where}.${name}\` is not set: its value is not a string`);
    else if (EXPRESSION.test(text)) unsupported.push(`${owner}\`${where}.${name}\` is not set: \`\${{ … }}\` expressions are not evaluated`);
    else if (text.length > MAX_VARIABLE_LENGTH)
      unsupported.push(`${owner}\`${where}.${name}\` is not set: its value is longer than ${MAX_VARIABLE_LENGTH} characters`);
    else taken[name] = text;
  }
  return taken;
}

function runDefaultsOf(holder: Mapping): { shell?: unknown; "working-directory"?: unknown } {
  const run = isMap(holder.defaults) && isMap(holder.defaults.run) ? holder.defaults.run : {};
  return {
    ...(run.shell !== undefined ? { shell: run.shell } : {}),
    ...(run["working-directory"] !== undefined ? { "working-directory": run["working-directory"] } : {}),
  };
}

/** The job's `container:` (a name, or a map with `image:`) as the image it runs in. */
function imageOf(container: unknown, unsupported: string[]): EnvironmentDeclaration["image"] {
  if (container === undefined) return undefined;
  const image = typeof container === "string" ? container : isMap(container) ? container.image : undefined;
  if (typeof image === "string" && image.trim() && !EXPRESSION.test(image)) return { image: image.trim() };
  unsupported.push(`\`jobs.${JOB}.container\` is not used: it names no image MAGIS can read`);
  return undefined;
}
