import { UsageError } from "./lib/usage-error.js";
import { createRequire } from "node:module";
import { ConfigError } from "./config.js";
import { actionCommand } from "./cli/action.js";
import { diagnoseCommand } from "./cli/diagnose.js";
import { envCommand } from "./cli/env.js";
import { evalCommand } from "./cli/eval.js";
import { processIo, type CliIo, type Command } from "./cli/io.js";
import { locateCommand } from "./cli/locate.js";
import { resolveCommand } from "./cli/resolve.js";
import { sandboxCommand } from "./cli/sandbox.js";
import { serveCommand } from "./cli/serve.js";
import { sessionCommand } from "./cli/session.js";

const commands: Command[] = [
  locateCommand,
  resolveCommand,
  diagnoseCommand,
  evalCommand,
  serveCommand,
  actionCommand,
  sandboxCommand,
  envCommand,
  sessionCommand,
];

function version(): string {
  const require = createRequire(import.meta.url);
  return (require("../package.json") as { version: string }).version;
}

function help(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    "magis — resolve GitHub issues with a team of LLM agents (MAGIS)",
    "",
    "Usage: magis <command> [options]",
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
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
  const command = commands.find((c) => c.name === first);
  if (!command) {
    io.stderr(`magis: unknown command '${first}'; run 'magis --help' to see the commands\n`);
    return 2;
  }
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
