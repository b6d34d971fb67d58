import path from "node:path";
import { UsageError } from "../lib/usage-error.js";
import { withEnvFile } from "../lib/read-env-file.js";
import { readSettings } from "../app/settings/read-settings.js";
import { chooseSandbox, runEscapeProbes, SandboxUnavailableError } from "../sandbox/index.js";
import { localSandboxWanted } from "./command-policy.js";
import { parseFlags, type Command } from "./io.js";

const usage = `Usage: magis sandbox check [--no-sandbox] [--env-file FILE]

Runs the sandbox's self-check, then a short escape suite through it: hostile commands that try to read
the bot's environment, its process and files, write outside their copy, use a descriptor the bot holds,
reach the network, leave a daemon behind and run without limits. Among the files are the bot's own as
its settings place them: the private key (PRIVATE_KEY_PATH) and its folder, the .env file, the database
(MAGIS_DB) and its folder, the working directory, the trace and spool folders and the work folder
(MAGIS_TRACE_DIR, MAGIS_SPOOL_DIR, MAGIS_WORKDIR). Prints what each got, and exits 0 when all were
contained, 1 when one got out or no sandbox works here.

The settings come from the environment and from FILE (default .env in the working folder), as
\`magis serve\` reads them: run it as the bot's user, from the bot's working folder, with its
environment, to probe what that bot's sandbox holds in.

The sandbox is the one MAGIS_SANDBOX names (auto: bubblewrap where it works); --no-sandbox shows what
MAGIS_SANDBOX=none leaves open.`;

const MARK = { contained: "contained", escaped: "ESCAPED", untested: "untested" } as const;

/** `magis sandbox check`: what the sandbox of this machine holds in. */
export const sandboxCommand: Command = {
  name: "sandbox",
  usage,
  run: async (args, io) => {
    const [action, ...rest] = args;
    if (action !== "check")
      throw new UsageError(
        action ? `unknown sandbox action '${action}': the one there is is \`magis sandbox check\`` : "say what to do: `magis sandbox check`",
      );
    const { values } = parseFlags(rest, { "no-sandbox": { type: "boolean", default: false }, "env-file": { type: "string" } });
    const envFile = path.resolve(io.cwd, values["env-file"] ?? ".env");
    const { env } = withEnvFile(io.env, envFile, { required: values["env-file"] !== undefined });
    const settings = readSettings(env, { door: "cli" });
    const wanted = localSandboxWanted(settings, env, values["no-sandbox"]!, { cwd: io.cwd, envFile });
    let choice;
    try {
      choice = chooseSandbox(wanted);
    } catch (error) {
      if (error instanceof SandboxUnavailableError) {
        io.stderr(`magis sandbox: ${error.message}\n`);
        return 1;
      }
      throw error;
    }
    if (!choice.sandbox) {
      io.stderr(`magis sandbox: ${choice.why}.\n`);
      return 1;
    }
    io.stdout(`Repository commands run ${choice.sandbox.description}.\n\n`);
    const { results, absent } = await runEscapeProbes(choice.sandbox, wanted.botPaths);
    const width = Math.max(...results.map((r) => r.tried.length));
    for (const result of results) io.stdout(`  ${MARK[result.verdict].padEnd(9)}  ${result.tried.padEnd(width)}  ${result.note}\n`);
    // A file in a folder that is not there either goes without saying.
    const untried = absent.filter((bot) => !absent.some((folder) => bot.path.startsWith(`${folder.path}/`)));
    if (untried.length > 0) io.stdout(`\nNot on this machine, so not tried: ${untried.map((bot) => `${bot.what} (${bot.path})`).join(", ")}.\n`);
    const escaped = results.filter((r) => r.verdict === "escaped").length;
    io.stdout(`\n${escaped === 0 ? "All contained" : `${escaped} of ${results.length} got out`}.\n`);
    return escaped === 0 ? 0 : 1;
  },
};
