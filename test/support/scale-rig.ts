import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { unmountUnder } from "../../src/lib/unmount-under.js";
import { REPO_FILES, scriptEveryRun } from "../e2e/script-resolve.js";
import { createBareRepository, startGitServer, type GitServer } from "./git-server.js";
import { serveFakeGitHub, type FakeGitHub } from "./github-api.js";
import { compileEveryCheck } from "./github-spec/screen-exchange.js";
import { postWebhook } from "./post-webhook.js";
import { startTestPostgres, type TestPostgres } from "./postgres.js";
import { startScriptedModel, type ScriptedModel } from "./scripted-model.js";
import { startServeProcess, type ServeProcess } from "./serve-process.js";
import { appPrivateKey } from "./app-private-key.js";

/** The secret the web processes check webhooks against. */
export const WEBHOOK_SECRET = "scale-webhook-secret";
const TOKEN = "ghs_scaleInstallationToken0123456789ab";
/** The installation the benchmark's webhooks come from (the fake hands a token to any installation). */
export const INSTALLATION = 77;
/** The repository whose issues the runs resolve. */
export const OWNER = "Codertocat";
export const REPO = "Hello-World";

/** The world of the app at scale: one PostgreSQL database, the git server, fake GitHub over HTTP, the scripted model, and `magis serve` processes. */
export interface ScaleRig {
  github: FakeGitHub & { url: string; unmatched: string[] };
  git: GitServer;
  model: ScriptedModel;
  /** Connections to the processes' database, for the caller's own reads. */
  db: pg.Pool;
  /** Every process started, in start order (stopped ones included). */
  processes: ServeProcess[];
  /** Starts `magis serve --role <role>` on the rig, `env` added to or replacing the rig's; resolves once it is ready. */
  serve(role: "web" | "worker", env?: NodeJS.ProcessEnv): Promise<ServeProcess>;
  /** POSTs a webhook signed with the app's secret to a web process; its status and how long the answer took. */
  deliver(web: ServeProcess, event: string, payload: unknown, delivery: string): Promise<{ status: number; ms: number }>;
  /** Stops every process (by process group) and every server, then the database server (or drops the database on a shared one), and removes the folder. */
  close(): Promise<void>;
}

/** How the rig's world is set up. */
export interface ScaleRigOptions {
  /** The repository's issues 1…issues, each the README typo (default 1). */
  issues?: number;
  /** Added before every model answer, so that jobs overlap in time. */
  latencyMs: number;
  /** MAGIS_WORKER_LOST_SECONDS of every process. */
  workerLostSeconds?: number;
  /** MAGIS_JOBS_CONCURRENCY of every worker. */
  concurrency?: number;
  /** The repository's `.github/magis.yml` (default: none). */
  config?: string;
}

/**
 * Starts the parts the processes talk to (each on 127.0.0.1) and returns the rig; a part that fails to start stops the
 * ones started before it. The model answers every run on the README typo and every revision of its pull request
 * (scriptEveryRun). dist/ must be built.
 */
export async function startScaleRig(options: ScaleRigOptions): Promise<ScaleRig> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "magis-scale-"));
  // Run last first. A job's tests may run in an overlay over a kept environment: one a stopped worker left mounted is
  // detached before the folder is removed.
  const stops: (() => Promise<unknown> | void)[] = [() => fs.rmSync(folder, { recursive: true, force: true }), () => void unmountUnder(folder)];
  const close = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  try {
    const postgres: TestPostgres = await startTestPostgres();
    stops.push(() => postgres.stop());
    const databaseUrl = await postgres.newDatabase();
    const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    // An idle connection the server ends is an 'error' event, which would end this process unheard; the next query reconnects.
    db.on("error", () => {});
    stops.push(() => db.end());
    const gitRoot = path.join(folder, "git");
    createBareRepository(gitRoot, `${OWNER}/${REPO}`, REPO_FILES);
    const git = await startGitServer(gitRoot, { token: TOKEN });
    stops.push(() => git.close());
    const model = await startScriptedModel({ latencyMs: options.latencyMs });
    stops.push(() => model.close());
    scriptEveryRun(model);
    const issues = Array.from({ length: options.issues ?? 1 }, (_, i) => ({
      number: i + 1,
      title: "Spelling error in the README file",
      body: "It looks like you accidently spelled 'commit' with two 't's.",
    }));
    const github = await serveFakeGitHub({
      owner: OWNER,
      repo: REPO,
      installationId: INSTALLATION,
      token: TOKEN,
      gitRoot,
      cloneUrl: `${git.url}/${OWNER}/${REPO}.git`,
      permissions: { Codertocat: "write" },
      issue: issues[0]!,
      moreIssues: issues.slice(1),
      ...(options.config !== undefined && { config: options.config }),
    });
    stops.push(() => github.close());
    // The fake holds every request and answer to GitHub's descriptions: compiled now, not while jobs are measured.
    compileEveryCheck();
    const processes: ServeProcess[] = [];
    stops.push(async () => {
      for (const child of processes) await child.stop();
    });
    const privateKey = appPrivateKey();
    const workDir = path.join(folder, "checkouts");
    fs.mkdirSync(workDir);
    const baseEnv: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      LOG_FORMAT: "json",
      DATABASE_URL: databaseUrl,
      APP_ID: "1",
      PRIVATE_KEY: privateKey,
      GHE_HOST: new URL(github.url).host,
      GHE_PROTOCOL: "http",
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-scale-not-secret-0123456789",
      MAGIS_MODEL: "scripted",
      MAGIS_LLM_MAX_RETRIES: "0",
      MAGIS_GIT_BASE_URL: git.url,
      MAGIS_WORKDIR: workDir,
      MAGIS_TRACE_DIR: "",
      MAGIS_WORKER_LOST_SECONDS: String(options.workerLostSeconds ?? 60),
      MAGIS_JOBS_CONCURRENCY: String(options.concurrency ?? 2),
      MAGIS_SHUTDOWN_GRACE_SECONDS: "2",
    };
    return {
      github,
      git,
      model,
      db,
      processes,
      close,
      async serve(role, env = {}) {
        // Only the web role takes webhooks; a worker needs the app's credentials, not the webhook secret.
        const roleEnv = role === "web" ? { WEBHOOK_SECRET } : {};
        const started = await startServeProcess(role, { ...baseEnv, ...roleEnv, ...env }, { cwd: folder });
        processes.push(started);
        return started;
      },
      deliver: (web, event, payload, delivery) => postWebhook(`${web.url}/api/github/webhooks`, WEBHOOK_SECRET, { event, payload, delivery }),
    };
  } catch (error) {
    await close();
    throw error;
  }
}
