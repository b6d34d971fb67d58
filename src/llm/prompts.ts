import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import { AGENTS, type Agent } from "../config.js";
import { dataNotice, isDataTag, wrapData } from "./mark-data.js";

/** A prompt file, parsed: who asks it, the variables it takes, and its two message templates. */
export interface Prompt {
  name: string;
  file: string;
  agent: Agent;
  variables: string[];
  /** The variables whose values are untrusted text (front matter `data`): each is rendered between the job's data tags. */
  data: string[];
  system: string;
  user: string;
  /** The first 12 hex digits of the SHA-256 of the file's text: trace records say which version of the prompt asked. */
  hash: string;
}

/** The two messages of a rendered prompt. */
export interface RenderedPrompt {
  system: string;
  user: string;
}

/** How one job renders its prompts. */
export interface RenderOptions {
  /** The job's data tag (newDataTag), made once per job: the same in each of its prompts, unknown to the texts it marks. */
  dataTag: string;
}

/** Where prompt files live; tests point it at fixtures. Defaults to the package's `prompts/`. */
export interface PromptDirOption {
  dir?: string;
}

/** A prompt file that cannot be loaded or rendered; the message names the prompt and what to fix. */
export class PromptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PromptError";
  }
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const cache = new Map<string, Prompt>();
let packagePromptsDir: string | undefined;

/** The `prompts/` folder of this package, found from this file so it works from `src/` (tsx, vitest) and from `dist/`. */
export function defaultPromptsDir(): string {
  packagePromptsDir ??= findPromptsDir();
  return packagePromptsDir;
}

function findPromptsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json")) || !existsSync(join(dir, "prompts"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new PromptError("Cannot find the prompts/ folder above " + fileURLToPath(import.meta.url) + "; reinstall the package.");
    dir = parent;
  }
  return join(dir, "prompts");
}

/** Names of the prompt files in `dir` (without `.md`), sorted. */
export function listPrompts(options: PromptDirOption = {}): string[] {
  return readdirSync(options.dir ?? defaultPromptsDir())
    .filter((file) => file.endsWith(".md"))
    .map((file) => file.slice(0, -3))
    .sort();
}

/** Loads and checks `<dir>/<name>.md` (cached per file): front matter, `# System` / `# User`, placeholders = `variables`. */
export function loadPrompt(name: string, options: PromptDirOption = {}): Prompt {
  const dir = options.dir ?? defaultPromptsDir();
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new PromptError(`Prompt name "${name}" is not a file name in prompts/ (use lower-case words joined by "-").`);
  const file = resolve(dir, `${name}.md`);
  const cached = cache.get(file);
  if (cached) return cached;
  if (!existsSync(file))
    throw new PromptError(`Prompt "${name}" does not exist: no file ${file}. Known prompts: ${listPrompts({ dir }).join(", ") || "none"}.`);
  const prompt = parsePrompt(name, file, readFileSync(file, "utf8"));
  cache.set(file, prompt);
  return prompt;
}

/**
 * Fills a prompt's placeholders; every declared variable must be given and nothing else. Each `data` variable's value is
 * wrapped in the job's data tags, and the system message then ends with the sentence that says what they mean.
 */
export function renderPrompt(prompt: Prompt, vars: Record<string, string | number>, options: RenderOptions): RenderedPrompt {
  const { dataTag } = options;
  if (!isDataTag(dataTag)) throw new PromptError(`Prompt "${prompt.name}": the data tag "${dataTag}" is not 8 hex digits; make it with newDataTag().`);
  const given = Object.keys(vars);
  const missing = prompt.variables.filter((v) => !given.includes(v));
  const unknown = given.filter((v) => !prompt.variables.includes(v));
  if (missing.length > 0 || unknown.length > 0) {
    const problems = [
      ...missing.map((v) => `variable "${v}" is missing`),
      ...unknown.map((v) => `variable "${v}" is not one of its variables (${prompt.variables.join(", ")})`),
    ];
    throw new PromptError(`Prompt "${prompt.name}": ${problems.join("; ")}.`);
  }
  // One pass, so a value that itself contains {{...}} (a template file, say) is left as it is.
  const valueOf = (v: string) => (prompt.data.includes(v) ? wrapData(String(vars[v]), dataTag) : String(vars[v]));
  const fill = (template: string) => template.replace(PLACEHOLDER, (_, v: string) => valueOf(v));
  const system = prompt.data.length > 0 ? `${fill(prompt.system)}\n\n${dataNotice(dataTag)}` : fill(prompt.system);
  return { system, user: fill(prompt.user) };
}

function parsePrompt(name: string, file: string, text: string): Prompt {
  const fail = (problem: string): never => {
    throw new PromptError(`Prompt "${name}" (${file}): ${problem}`);
  };
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(text);
  if (!match) return fail('it must start with YAML front matter between "---" lines.');
  let meta: { agent?: unknown; variables?: unknown; data?: unknown };
  try {
    meta = (parseYaml(match[1]!) ?? {}) as typeof meta;
  } catch (error) {
    return fail(`its front matter is not valid YAML: ${error instanceof Error ? error.message.split("\n")[0] : error}`);
  }
  const agent = meta.agent;
  if (typeof agent !== "string" || !(AGENTS as readonly string[]).includes(agent)) fail(`front matter "agent" must be one of ${AGENTS.join(", ")}.`);
  const variables = meta.variables ?? [];
  if (!Array.isArray(variables) || !variables.every((v) => typeof v === "string")) return fail('front matter "variables" must be a list of names.');
  const data = meta.data ?? [];
  if (!Array.isArray(data) || !data.every((v) => typeof v === "string")) return fail('front matter "data" must be a list of variable names.');
  const undeclaredData = data.filter((v: string) => !variables.includes(v));
  if (undeclaredData.length > 0)
    fail(`front matter "data" names ${undeclaredData.join(", ")}, which "variables" does not declare; declare it there or take it out of "data".`);

  const sections = /^# System[ \t]*\r?\n([\s\S]*?)^# User[ \t]*\r?\n([\s\S]*)$/m.exec(match[2]!);
  if (!sections) return fail('it needs a "# System" heading followed by a "# User" heading.');
  if (match[2]!.slice(0, sections.index).trim() !== "") fail('text before "# System" would be lost; move it under a heading.');
  const system = sections[1]!.trim();
  const user = sections[2]!.trim();

  const used = new Set([...`${system}\n${user}`.matchAll(PLACEHOLDER)].map((m) => m[1]!));
  const undeclared = [...used].filter((v) => !variables.includes(v));
  const unused = variables.filter((v: string) => !used.has(v));
  if (undeclared.length > 0) fail(`placeholder ${undeclared.map((v) => `{{${v}}}`).join(", ")} is not declared in "variables".`);
  if (unused.length > 0) fail(`variable ${unused.join(", ")} is declared but the template never uses it.`);
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 12);
  return { name, file, agent: agent as Agent, variables: variables as string[], data: data as string[], system, user, hash };
}
