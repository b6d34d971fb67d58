import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { inputVariable } from "../../src/app/settings/read-settings.js";
import { buildAction } from "../../scripts/lib/build-action.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** action.yml as the runner reads it. */
export interface ActionYml {
  runs: { using: string; main?: string; steps?: unknown[] };
  inputs: Record<string, { description: string; default?: string; required?: boolean }>;
}

/** The repository's action.yml, parsed. */
export function readActionYml(): ActionYml {
  return parse(fs.readFileSync(path.join(ROOT, "action.yml"), "utf8")) as ActionYml;
}

/** The folder of the action's entry point (`runs.main`), relative to action.yml: all of the action that runs. */
function mainFolder(action: ActionYml): string {
  if (!action.runs.main) throw new Error("action.yml names no runs.main");
  return action.runs.main.split("/")[0]!;
}

/** Copies the committed action as a runner needs it, into `into`: action.yml and the folder of its entry point, nothing else. */
export function copyCommittedAction(into: string): void {
  fs.copyFileSync(path.join(ROOT, "action.yml"), path.join(into, "action.yml"));
  const folder = mainFolder(readActionYml());
  fs.cpSync(path.join(ROOT, folder), path.join(into, folder), { recursive: true });
}

/** Builds the action from the sources into `into`: action.yml and its folder as `npm run build:action` writes it (what CI checks the committed one against). */
export async function buildActionCopy(into: string): Promise<void> {
  fs.copyFileSync(path.join(ROOT, "action.yml"), path.join(into, "action.yml"));
  await buildAction(path.join(into, mainFolder(readActionYml())));
}

/**
 * The variables a runner gives a JavaScript action's step for its inputs: INPUT_<NAME> for every input declared, the
 * value given, else the default with its expressions filled by `expand`, else empty.
 */
export function inputVariables(action: ActionYml, given: Record<string, string>, expand: (text: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(action.inputs).map(([name, input]) => [inputVariable(name), given[name] ?? expand(input.default ?? "")]));
}

/**
 * The Node that runs the action's bundle in the tests: MAGIS_ACTION_NODE when set (a Node 24 binary, the runner's
 * node24: see docs/action.md), else the one running the tests.
 */
export const ACTION_NODE = process.env.MAGIS_ACTION_NODE || process.execPath;

const [version, hasSqlite] = execFileSync(
  ACTION_NODE,
  ["-p", 'process.version + " " + (typeof process.getBuiltinModule === "function" && process.getBuiltinModule("node:sqlite") !== undefined)'],
  { encoding: "utf8" },
)
  .trim()
  .split(" ");

/** ACTION_NODE's version, `v20.20.2`. */
export const ACTION_NODE_VERSION = version!;

/** Whether ACTION_NODE has node:sqlite (22.13 and later): without it, the bundle needs better-sqlite3 from somewhere. */
export const ACTION_NODE_HAS_SQLITE = hasSqlite === "true";

/** Where the repository's packages are: NODE_PATH for a bundle that needs better-sqlite3 on a Node without node:sqlite. */
export const REPOSITORY_PACKAGES = path.join(ROOT, "node_modules");
