import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createOctokitClass, githubBoundsFrom } from "../../github/create-octokit-class.js";
import { botIdentity, createServices, type GitHubHost, type MagisAppOptions } from "../create-services.js";
import { triggerContext } from "../../triggers/trigger-desk.js";
import type { Octokit } from "../../github/types.js";
import { redactSecrets } from "../../lib/redact-secrets.js";
import { openDatabase } from "../../backends/sqlite/database.js";
import { SqliteBackend } from "../../backends/sqlite/sqlite-backend.js";
import { readRunnerEvent } from "./read-runner-event.js";
import { renderStepSummary, type ActionOutcome } from "./render-step-summary.js";

/** Where the Action writes its lines: the step's log. */
export interface ActionIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/**
 * `magis action`: one workflow run is one trigger, handled by the same rules, jobs and publishing as the App.
 *  1. read the event and the token from the runner's environment;
 *  2. open the job store (MAGIS_DB, e.g. a cached `.magis/`, else a folder under RUNNER_TEMP) and the GitHub client;
 *  3. take the event as a trigger, decide it and run its job to the end, inside the step;
 *  4. say what happened in the step summary; the exit code is 1 when the job or its decision failed.
 */
export async function runAction(env: NodeJS.ProcessEnv, io: ActionIo, options: Pick<MagisAppOptions, "createLlm" | "onTimings"> = {}): Promise<number> {
  // 1. The event.
  const event = readRunnerEvent(env);
  const secrets = [event.token, env.OPENAI_API_KEY];
  const say = (level: "info" | "warning" | "error") => (obj: object, msg: string) => {
    const text = redactSecrets(`${msg} ${JSON.stringify(obj)}`, secrets);
    io.stderr(level === "info" ? `magis: ${text}\n` : `::${level}::${text}\n`);
  };
  const log = { info: say("info"), warn: say("warning"), error: say("error") };

  // 2. The store and the client.
  const scratch = env.MAGIS_DB ? null : fs.mkdtempSync(path.join(env.RUNNER_TEMP || os.tmpdir(), "magis-action-"));
  const backend = new SqliteBackend(openDatabase(env.MAGIS_DB || path.join(scratch!, "magis.db")));
  const Bounded = createOctokitClass(githubBoundsFrom(env));
  const octokit = new Bounded({ auth: { token: event.token }, baseUrl: event.apiUrl }) as Octokit;
  // The workflow's token acts as one installation; its bot is github-actions[bot] unless an app token is passed.
  const host: GitHubHost = { auth: async () => octokit, bot: botIdentity(async () => env.MAGIS_BOT_LOGIN || "github-actions[bot]"), log };
  try {
    const services = createServices(host, {
      ...options,
      env,
      backend,
      concurrency: 1,
      // The runner is the repository's own sandbox: its tests may run there.
      allowExec: true,
      traceDir: env.MAGIS_TRACE_DIR ?? "",
      gitBaseUrl: env.MAGIS_GIT_BASE_URL || undefined,
      workDir: env.MAGIS_WORKDIR || env.RUNNER_TEMP || undefined,
      // A runner is new for each run: objects kept for a next clone would never be used.
      keepObjects: false,
    });
    await services.start();

    // 3. The trigger and its job. Events of a workflow carry no installation; the token stands for one.
    const payload = { ...event.payload, installation: event.payload.installation ?? { id: 0 } };
    const context = triggerContext({ delivery: event.delivery, event: `${event.name}.${String(event.payload.action ?? "")}`, payload }, octokit, log);
    // The job this event queues is the one after the newest so far (a kept database holds earlier runs' jobs); a CI fix
    // is keyed by its commit rather than by the delivery, so the delivery cannot find it.
    const before = (await services.jobs.newest())?.id ?? 0;
    await services.desk.receive(context);
    await services.settled();

    // 4. The outcome.
    const trigger = await services.triggers.get(event.delivery);
    const newest = await services.jobs.newest();
    const job = newest && newest.id > before ? newest : null;
    const outcome: ActionOutcome = { event: `${event.name}.${String(event.payload.action ?? "")}`, trigger, job };
    const summary = renderStepSummary(outcome);
    if (env.GITHUB_STEP_SUMMARY) fs.appendFileSync(env.GITHUB_STEP_SUMMARY, `${redactSecrets(summary, secrets)}\n`);
    // Quoted text (a hook's output, a failure reason) could start a line with "::", which the runner would read as a
    // workflow command: the log gets the summary with workflow commands switched off around it.
    const fence = crypto.randomUUID();
    io.stdout(`::stop-commands::${fence}\n${redactSecrets(summary, secrets)}\n::${fence}::\n`);
    return trigger?.outcome === "failed" || job?.status === "failed" ? 1 : 0;
  } finally {
    await backend.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  }
}
