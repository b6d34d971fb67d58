import fs from "node:fs";
import path from "node:path";
import { environmentFolder } from "../app/settings/find-state-paths.js";
import { readSettings } from "../app/settings/read-settings.js";
import type { Settings } from "../app/settings/settings-table.js";
import { openEnvironmentShelf, type EnvironmentShelf, type KeptEnvironmentRecord } from "../environment/index.js";
import { withEnvFile } from "../lib/read-env-file.js";
import { UsageError } from "../lib/usage-error.js";
import { describeEnvironment, prepareEnvironment } from "../pipeline/index.js";
import { lineLog, localCommandPolicy } from "./command-policy.js";
import { parseFlags, type CliIo, type Command } from "./io.js";
import { openCheckout } from "./open-checkout.js";

const usage = `Usage: magis env build|show|clear --repo DIR [--env-file FILE] [--no-sandbox]

The environments kept for a local checkout: what its setup built (the checkout's copy after setup, and
its home), kept so that the next \`magis resolve\` on it with the same key runs only the maintenance steps.

  build   builds the environment the checkout declares (.github/magis.yml, devcontainer.json,
          copilot-setup-steps.yml) in the sandbox, or reuses and maintains the one kept, and keeps it;
          --no-sandbox runs the setup as you
  show    lists each: its key, where it was declared, its size, when it was built and last used, how
          long its setup took, and the hosts the setup reached and was refused
  clear   removes them

They live in MAGIS_ENV_DIR (default: environments in the bot's state folder, ~/.cache/magis/), bounded
in all by MAGIS_ENV_CACHE_MB, read from the environment and FILE (default .env in the working folder).`;

/** `magis env`: a checkout's kept environments, shown or removed. */
export const envCommand: Command = {
  name: "env",
  usage,
  run: async (args, io) => {
    const [action, ...rest] = args;
    if (action !== "build" && action !== "show" && action !== "clear")
      throw new UsageError(
        action ? `unknown env action '${action}': the ones there are are build, show and clear` : "say what to do: `magis env build`, `show` or `clear`",
      );
    const { values } = parseFlags(rest, { repo: { type: "string" }, "env-file": { type: "string" }, "no-sandbox": { type: "boolean", default: false } });
    if (!values.repo) throw new UsageError("--repo is required");
    const resolved = path.resolve(io.cwd, values.repo);
    if (!fs.statSync(resolved, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--repo ${values.repo} is not a directory`);
    // As `magis resolve` names its checkout's environments: by the folder's real path.
    const repo = fs.realpathSync(resolved);
    const envFile = path.resolve(io.cwd, values["env-file"] ?? ".env");
    const { env } = withEnvFile(io.env, envFile, { required: values["env-file"] !== undefined });
    const settings = readSettings(env, { door: "cli" });
    if (action === "build") return build(io, { repo: values.repo, settings, env, noSandbox: values["no-sandbox"]! });
    const opened = openShelf(settings, io);
    if (!opened) {
      io.stdout(`No environment is kept for ${repo}: neither MAGIS_ENV_DIR, XDG_CACHE_HOME nor HOME names a folder for them.\n`);
      return 0;
    }
    const { shelf, folder } = opened;
    const kept = shelf.list({ repo });
    if (action === "clear") {
      const removed = shelf.remove({ repo });
      await shelf.settled();
      io.stdout(`Removed ${removed === 1 ? "1 environment" : `${removed} environments`} kept for ${repo} in ${folder}.\n`);
      return 0;
    }
    if (kept.length === 0) {
      io.stdout(`No environment is kept for ${repo} in ${folder}.\n`);
      return 0;
    }
    const now = io.now?.() ?? Date.now();
    io.stdout(`${kept.length === 1 ? "1 environment" : `${kept.length} environments`} kept for ${repo} in ${folder}:\n`);
    for (const record of kept) io.stdout(describeKept(record, now));
    return 0;
  },
};

/** `build`: the checkout's environment made ready and kept, as `magis resolve` would before its first test run. */
async function build(io: CliIo, run: { repo: string; settings: Settings; env: NodeJS.ProcessEnv; noSandbox: boolean }): Promise<number> {
  const { repo, config } = openCheckout(io, run.repo);
  const commands = localCommandPolicy(run.settings, run.env, run.noSandbox, { root: repo, cwd: io.cwd, stderr: io.stderr });
  const prepared = await prepareEnvironment({ root: repo, repoId: repo, config, commands });
  if (prepared.environment) io.stdout(`${describeEnvironment(prepared.environment)}.\n`);
  if (prepared.ok) return 0;
  io.stderr(`magis env: ${prepared.why}\n`);
  return 1;
}

/** The shelf of the settings' folder (MAGIS_ENV_CACHE_MB 0 still shows and clears what was kept), or null without one. */
function openShelf(settings: Settings, io: CliIo): { shelf: EnvironmentShelf; folder: string } | null {
  const named = environmentFolder(settings);
  if (!named) return null;
  const folder = path.resolve(io.cwd, named);
  return { shelf: openEnvironmentShelf({ folder, maxBytes: settings.environments.cacheMb * 1024 * 1024, log: lineLog(io.stderr) }), folder };
}

/** One kept environment, as `show` prints it: a line of what it is, then its key's parts and its setup's hosts. */
function describeKept(record: KeptEnvironmentRecord, now: number): string {
  const lines = [
    `  ${record.key.slice(0, 12)}  ${record.source}, ${megabytes(record.bytes)}, built ${ago(record.builtAt, now)} in ${seconds(record.buildSeconds)}, last used ${ago(record.usedAt, now)}`,
  ];
  const files = Object.keys((record.keyParts.keyFiles as Record<string, string> | undefined) ?? {});
  if (files.length > 0) lines.push(`      key files: ${files.join(", ")}`);
  const network = record.network;
  if (network) {
    const hosts = (list: { host: string; count: number; why?: string }[], withWhy: boolean) =>
      list.map((tally) => `${tally.host} (${withWhy && tally.why ? tally.why : `${tally.count}×`})`).join(", ") || "none";
    lines.push(`      setup reached ${hosts(network.reached, false)}; refused ${hosts(network.refused, true)}`);
  }
  return `${lines.join("\n")}\n`;
}

function megabytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} kB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function seconds(value: number): string {
  return value < 60 ? `${value.toFixed(1)} s` : `${(value / 60).toFixed(1)} min`;
}

/** How long ago a time was, in the largest whole unit. */
function ago(iso: string, now: number): string {
  const elapsed = Math.max(0, (now - Date.parse(iso)) / 1000);
  if (elapsed < 60) return "just now";
  if (elapsed < 3600) return `${Math.floor(elapsed / 60)} min ago`;
  if (elapsed < 86_400) return `${Math.floor(elapsed / 3600)} h ago`;
  return `${Math.floor(elapsed / 86_400)} days ago`;
}
