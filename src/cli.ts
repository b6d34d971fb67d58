import { UsageError } from "./lib/usage-error.js";
import { createRequire } from "node:module";
import { ConfigError } from "./config-error.js";
import { COMMANDS } from "./cli/command-table.js";
import { processIo, type CliIo } from "./cli/io.js";

function version(): string {
  const require = createRequire(import.meta.url);
  return (require("../package.json") as { version: string }).version;
}

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "magis — resolve GitHub issues with a team of LLM agents (MAGIS)",
    "",
    "Usage: magis <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Options:",
    "  -h, --help     show help (also `magis <command> --help`)",
    "  -v, --version  show the version",
    "",
    "Model settings: OPENAI_API_KEY, OPENAI_BASE_URL, MAGIS_MODEL (MAGIS_MODEL_<AGENT> per agent).",
    "",
  ].join("\n");
}

/** Runs `magis` with the given arguments; returns the exit code (2 for a usage mistake). */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === "-h" || first === "--help" || first === "help") {
    io.stdout(help());
    return first === undefined ? 2 : 0;
  }
  if (first === "-v" || first === "--version") {
    io.stdout(`${version()}\n`);
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === first);
  if (!entry) {
    io.stderr(`magis: unknown command '${first}'; run 'magis --help' to see the commands\n`);
    return 2;
  }
  const command = await entry.load();
  if (rest.includes("-h") || rest.includes("--help")) {
    io.stdout(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`magis ${command.name}: ${error.message}${error.details ? `\n${error.details}` : `; run 'magis ${command.name} --help'`}\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.stderr(`magis ${command.name}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
