import { codeSpan, neutralize } from "../../lib/markdown.js";
import type { Context } from "probot";
import { ConfigError, parseConfig, type MagisConfig } from "../../config.js";

/** The repository's `.github/magis.yml`, validated; or every problem with it and the label it meant to set. */
export type LoadedConfig = { ok: true; config: MagisConfig } | { ok: false; error: ConfigError; label: string };

/** The config file's name under `.github/`. */
export const CONFIG_FILE = "magis.yml";

/** Reads `.github/magis.yml` from the default branch with Probot's config loader (a missing file means the defaults) and validates it. */
export async function loadConfig(context: Context): Promise<LoadedConfig> {
  let raw: unknown;
  try {
    raw = await context.config(CONFIG_FILE);
  } catch (error) {
    // The loader throws on YAML it cannot parse; GitHub errors other than 404 are not the config's fault.
    if ((error as { status?: number }).status !== undefined) throw error;
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    return { ok: false, error: new ConfigError([{ path: "", message: `is not valid YAML: ${firstLine(cause)}` }]), label: "magis" };
  }
  try {
    return { ok: true, config: parseConfig(raw) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const label = (raw as { label?: unknown } | null)?.label;
    return { ok: false, error, label: typeof label === "string" && label !== "" ? label : "magis" };
  }
}

/** The comment that answers a trigger when the config is broken: every problem, and what to do. */
export function renderConfigProblems(error: ConfigError): string {
  return [
    "😕 MAGIS did not start: `.github/magis.yml` on the default branch is invalid.",
    "",
    // The file's own text (an unknown key, a value) is quoted in the messages: it must not @mention anyone or close an issue.
    ...error.problems.map((p) => `- ${codeSpan(p.path || "(top level)")}: ${neutralize(p.message)}`),
    "",
    "Fix these fields (or delete them to use the defaults), then add the label again or comment `/magis retry`.",
  ].join("\n");
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}
