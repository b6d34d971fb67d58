import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createOctokitClass } from "../../github/client/create-octokit-class.js";
import { timeRequests } from "../../github/client/time-requests.js";
import { capBody, STEP_SUMMARY_LIMIT } from "../../github/publish/fit-body.js";
import { botIdentity, createServices, sandboxFor } from "../create-services.js";
import type { GitHubHost, ServiceSeams } from "../service-types.js";
import { triggerContext } from "../../triggers/trigger-context.js";
import type { Octokit } from "../../github/types.js";
import { redactSecrets } from "../../lib/redact-secrets.js";
import { openDatabase } from "../../backends/sqlite/database.js";
import { SqliteBackend } from "../../backends/sqlite/sqlite-backend.js";
import { readSettings } from "../settings/read-settings.js";
import { readRunnerEvent } from "./read-runner-event.js";
import { renderStepSummary, type ActionOutcome } from "./render-step-summary.js";

/** Where the Action writes its lines: the step's log. */
export interface ActionIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/**
 * `magis action`: one workflow run is one trigger, handled by the same rules, jobs and publishing as the App.
 *  1. read the settings, and the event and the token from the runner's environment;
 *  2. open the job store (MAGIS_DB, e.g. a cached `.magis/`, else a folder under RUNNER_TEMP) and the GitHub client;
 *  3. take the event as a trigger, decide it and run its job to the end, inside the step;
 *  4. say what happened in the step summary; the exit code is 1 when the job or its decision failed.
 */
export async function runAction(
  env: NodeJS.ProcessEnv,
  io: ActionIo,
  { signal, ...options }: Pick<ServiceSeams, "createLlm" | "onTimings" | "sandbox"> & { signal?: AbortSignal } = {},
): Promise<number> {
  // 1. The settings and the event.
  const settings = readSettings(env, { door: "action" });
  const event = readRunnerEvent(settings.runner);
  const secrets = [event.token, settings.model.apiKey];
  const say = (level: "info" | "warning" | "error") => (obj: object, msg: string) => {
    const text = redactSecrets(`${msg} ${JSON.stringify(obj)}`, secrets);
    io.stderr(level === "info" ? `magis: ${text}\n` : `::${level}::${text}\n`);
  };
  const log = { info: say("info"), warn: say("warning"), error: say("error") };

  // 2. The store and the client.
  const { sqliteFile } = settings.store;
  const scratch = sqliteFile ? null : fs.mkdtempSync(path.join(settings.runner.temp ?? os.tmpdir(), "magis-action-"));
  let backend: SqliteBackend | undefined;
  try {
    backend = new SqliteBackend(openDatabase(sqliteFile ?? path.join(scratch!, "magis.db")));
    const Bounded = createOctokitClass(settings.github);
    const octokit = new Bounded({ auth: { token: event.token }, baseUrl: event.apiUrl }) as Octokit;
    // Each request with its wait behind GitHub's pacing, as a debug line: the runner shows those only with step debug
    // logging on (the ACTIONS_STEP_DEBUG secret), where they say what the job's GitHub time went to.
    timeRequests(octokit, (timing) => io.stderr(`::debug::magis: GitHub request ${JSON.stringify(timing)}\n`));
    // The workflow's token acts as one installation; its bot is github-actions[bot] unless an app token is passed.
    const host: GitHubHost = { auth: async () => octokit, bot: botIdentity(async () => settings.runner.botLogin), log };
    const services = createServices(host, {
      settings: {
        // The environment the repository's tests run in, passed through on purpose (less its secrets, see commandEnv).
        env,
        // One job, checked out in the runner's temp folder unless MAGIS_WORKDIR says otherwise; a runner is new for each
        // run: objects kept for a next clone would never be used. Traces only where MAGIS_TRACE_DIR says (a store is given).
        values: {
          ...settings,
          jobs: { ...settings.jobs, concurrency: 1 },
          git: { ...settings.git, workDir: settings.git.workDir ?? settings.runner.temp, objectCacheMb: 0 },
          // Nor environments: the declared setup runs once in the run, and its environment goes with the runner.
          environments: { ...settings.environments, cacheMb: 0 },
        },
        // The workflow is the repository's own: its config may choose its models.
        repositoryModels: "any",
        // The committed bundle carries no language server (Pyright alone is 38 MB of scripts and stubs): see docs/action.md.
        languageServers: false,
        noPlanApproval: "the Action's run ends with its job, and a `/magis go` comment starts another run that cannot reach this one",
      },
      seams: {
        ...options,
        backend,
        // The runner is the repository's own machine: its tests run there, in bubblewrap where the runner has it.
        sandbox: options.sandbox ?? sandboxFor(settings, { env, log, action: true }),
      },
    });
    await services.start();
    // Stopped (SIGTERM, SIGINT): the job is cancelled where it is, its clone and sandboxed commands going with it.
    const stop = () => void services.stop(0);
    if (signal?.aborted) stop();
    else signal?.addEventListener("abort", stop, { once: true });

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
    const cut = "*(Cut here: GitHub takes at most 1 MiB in a step summary.)*";
    if (settings.runner.stepSummary) fs.appendFileSync(settings.runner.stepSummary, `${capBody(redactSecrets(summary, secrets), cut, STEP_SUMMARY_LIMIT)}\n`);
    // Quoted text (a hook's output, a failure reason) could start a line with "::", which the runner would read as a
    // workflow command: the log gets the summary with workflow commands switched off around it.
    const fence = crypto.randomUUID();
    io.stdout(`::stop-commands::${fence}\n${redactSecrets(summary, secrets)}\n::${fence}::\n`);
    return trigger?.outcome === "failed" || job?.status === "failed" ? 1 : 0;
  } finally {
    await backend?.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  }
}
