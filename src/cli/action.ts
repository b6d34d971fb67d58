import { runAction } from "../app/action/run-action.js";
import { RunnerEnvError } from "../app/action/read-runner-event.js";
import { parseFlags, type Command } from "./io.js";

const usage = `Usage: magis action

Runs MAGIS inside a GitHub Actions step (see action.yml and examples/github-action/magis.yml): the workflow's
event is the trigger, handled as the App handles a webhook, and its job runs to the end inside the step.

Environment (set by the runner and the action's inputs):
  GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_RUN_ID   the event
  GITHUB_TOKEN                             the token the bot acts with (contents, issues, pull-requests: write)
  OPENAI_API_KEY, OPENAI_BASE_URL, MAGIS_MODEL   the model
  MAGIS_BOT_LOGIN (github-actions[bot])    the login the token's pull requests are opened by (an app token's bot)
  MAGIS_DB                                 keep the evolution memory across runs (e.g. a cached .magis/magis.db)
  GITHUB_STEP_SUMMARY                      where the run's summary is written`;

/** `magis action`: the GitHub Action door. */
export const actionCommand: Command = {
  name: "action",
  summary: "run inside a GitHub Actions step: the workflow's event is the trigger",
  usage,
  run: async (args, io) => {
    parseFlags(args, {});
    try {
      return await runAction(io.env, io);
    } catch (error) {
      if (!(error instanceof RunnerEnvError)) throw error;
      io.stderr(`magis action: ${error.message}\n`);
      return 2;
    }
  },
};
