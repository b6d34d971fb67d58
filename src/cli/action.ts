import { runAction } from "../app/action/run-action.js";
import { RunnerEnvError } from "../app/action/read-runner-event.js";
import { parseFlags, type Command } from "./io.js";
import { renderSettingsHelp } from "../app/settings/render-settings-help.js";

const usage = `Usage: magis action

Runs MAGIS inside a GitHub Actions step (see action.yml and examples/github-action/magis.yml): the workflow's
event is the trigger, handled as the App handles a webhook, and its job runs to the end inside the step.
The runner sets the GITHUB_* variables, and hands the action's inputs over as INPUT_* variables: each sets
the variable docs/configuration.md names beside it (an input given wins over the variable).

${renderSettingsHelp("action")}`;

/** `magis action`: the GitHub Action door. */
export const actionCommand: Command = {
  name: "action",
  usage,
  run: async (args, io) => {
    parseFlags(args, {});
    try {
      const signal = io.stopSignal?.();
      return await runAction(io.env, io, signal ? { signal } : {});
    } catch (error) {
      if (!(error instanceof RunnerEnvError)) throw error;
      io.stderr(`magis action: ${error.message}\n`);
      return 2;
    }
  },
};
