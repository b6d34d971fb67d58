import { UsageError } from "../lib/usage-error.js";
import { readSettings } from "../app/settings/read-settings.js";
import { SandboxUnavailableError } from "../sandbox/choose-sandbox.js";
import { chooseLocalSandbox } from "./command-policy.js";
import { runEscapeProbes } from "../sandbox/escape-probes.js";
import { parseFlags, type Command } from "./io.js";

const usage = `Usage: magis sandbox check [--no-sandbox]

Runs the sandbox's self-check, then a short escape suite through it: hostile commands that try to read
the bot's environment, its process and files, write outside their copy, reach the network, leave a
daemon behind and run without limits. Prints what each got, and exits 0 when all were contained,
1 when one got out or no sandbox works here.

The sandbox is the one MAGIS_SANDBOX names (auto: bubblewrap where it works); --no-sandbox shows what
MAGIS_SANDBOX=none leaves open.`;

const MARK = { contained: "contained", escaped: "ESCAPED", untested: "untested" } as const;

/** `magis sandbox check`: what the sandbox of this machine holds in. */
export const sandboxCommand: Command = {
  name: "sandbox",
  summary: "check the sandbox the repository's commands run in: self-check and escape suite",
  usage,
  run: async (args, io) => {
    const [action, ...rest] = args;
    if (action !== "check")
      throw new UsageError(
        action ? `unknown sandbox action '${action}': the one there is is \`magis sandbox check\`` : "say what to do: `magis sandbox check`",
      );
    const { values } = parseFlags(rest, { "no-sandbox": { type: "boolean", default: false } });
    const settings = readSettings(io.env, { door: "cli" });
    let choice;
    try {
      choice = chooseLocalSandbox(settings, io.env, values["no-sandbox"]!);
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
    const results = await runEscapeProbes(choice.sandbox);
    const width = Math.max(...results.map((r) => r.tried.length));
    for (const result of results) io.stdout(`  ${MARK[result.verdict].padEnd(9)}  ${result.tried.padEnd(width)}  ${result.note}\n`);
    const escaped = results.filter((r) => r.verdict === "escaped").length;
    io.stdout(`\n${escaped === 0 ? "All contained" : `${escaped} of ${results.length} got out`}.\n`);
    return escaped === 0 ? 0 : 1;
  },
};
