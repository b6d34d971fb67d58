import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { startServer } from "../../src/app/start-server.js";
import type { RunningServer } from "../../src/server/listen-on.js";
import { appPrivateKey } from "../support/app-private-key.js";
import { freePort } from "../support/free-port.js";
import { createBareRepository, startGitServer, type GitServer } from "../support/git-server.js";
import { serveFakeGitHub, type FakeGitHub } from "../support/github-api.js";
import { postWebhook } from "../support/post-webhook.js";
import { startScriptedModel, type ScriptedModel } from "../support/scripted-model.js";
import { labeledPayload } from "./payloads.js";
import { REPO_FILES, scriptResolve } from "./script-resolve.js";

export const OWNER = "Codertocat";
export const REPO = "Hello-World";
const TOKEN = "ghs_sessionWorldToken0123456789abcdef";
const SECRET = "session-world-webhook-secret";
const INSTALLATION = 77;
export const OAUTH = { clientId: "Iv1.sessionworld", clientSecret: "session-world-client-secret-0123456789" };

/** A prompt whose answer waits until the test releases it: the job stops there, mid-run, as long as the test likes. */
export interface Gate {
  /** Resolves once the job has asked the model for this prompt (it now waits). */
  reached: Promise<void>;
  release(): void;
}

/**
 * `magis serve --role all` in this process with the session pages on (its OAuth client registered at the fake GitHub,
 * MAGIS_PUBLIC_URL its own address), over HTTP: the fake GitHub (which the browser signs in at too), the real git
 * server, the scripted model with gates the test opens one by one, and SQLite.
 */
export interface SessionWorld {
  url: string;
  github: FakeGitHub & { url: string };
  git: GitServer;
  model: ScriptedModel;
  logs: string[];
  /** The SQLite file of the app's records and sessions. */
  dbFile: string;
  /** A gate for each prompt named when the world started. */
  gates: Record<string, Gate>;
  /** Labels issue 1 as @sender; the delivery's status. */
  label(sender: string): Promise<number>;
  close(): Promise<void>;
}

/** Starts the world; `gated` prompts (each answered once per run) wait for their gate. */
export async function startSessionWorld(options: {
  gated: string[];
  permissions: Record<string, "write" | "read" | "admin">;
  /** The repository's `.github/magis.yml` (default: none). */
  config?: string;
}): Promise<SessionWorld> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-session-world-"));
  const stops: (() => Promise<unknown> | void)[] = [() => fs.rmSync(dir, { recursive: true, force: true })];
  const close = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  try {
    const gitRoot = path.join(dir, "git");
    createBareRepository(gitRoot, `${OWNER}/${REPO}`, REPO_FILES);
    const git = await startGitServer(gitRoot, { token: TOKEN });
    stops.push(() => git.close());
    const model = await startScriptedModel();
    stops.push(() => model.close());
    // Gated prompts are scripted first: a function answer answers every call, so the plain ones queued after it never are.
    const gates: Record<string, Gate> = {};
    const answers = recordAnswers();
    for (const prompt of options.gated) {
      let reach!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((resolve) => (reach = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      gates[prompt] = { reached, release };
      model.script(prompt, async () => {
        reach();
        await released;
        return answers[prompt];
      });
    }
    scriptResolve(model);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const github = await serveFakeGitHub({
      owner: OWNER,
      repo: REPO,
      installationId: INSTALLATION,
      token: TOKEN,
      gitRoot,
      cloneUrl: `${git.url}/${OWNER}/${REPO}.git`,
      private: true,
      permissions: options.permissions,
      config: options.config,
      issue: { number: 1, title: "Spelling error in the README file", body: "It looks like you accidently spelled 'commit' with two 't's." },
      oauth: { ...OAUTH, callbackUrls: [`${url}/auth/github/callback`] },
    });
    stops.push(() => github.close());
    const logs: string[] = [];
    const dbFile = path.join(dir, "magis.db");
    const log = pino({ level: "info" }, { write: (line: string) => void logs.push(line) });
    const server: RunningServer = await startServer(
      {
        HOST: "127.0.0.1",
        PORT: String(port),
        NODE_ENV: "test",
        APP_ID: "1",
        PRIVATE_KEY: appPrivateKey(),
        WEBHOOK_SECRET: SECRET,
        GHE_HOST: new URL(github.url).host,
        GHE_PROTOCOL: "http",
        GITHUB_CLIENT_ID: OAUTH.clientId,
        GITHUB_CLIENT_SECRET: OAUTH.clientSecret,
        MAGIS_PUBLIC_URL: url,
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: "sk-session-world-not-secret-0123",
        MAGIS_MODEL: "scripted",
        MAGIS_LLM_MAX_RETRIES: "0",
        MAGIS_GIT_BASE_URL: git.url,
        MAGIS_DB: dbFile,
        MAGIS_WORKDIR: path.join(dir, "work"),
        MAGIS_OBJECT_CACHE_MB: "0",
        MAGIS_TRACE_DIR: "",
        MAGIS_SANDBOX: "none",
        MAGIS_SHUTDOWN_GRACE_SECONDS: "1",
      },
      { log, envFile: path.join(dir, ".env") },
    );
    stops.push(() => server.stop());
    let deliveries = 0;
    return {
      url,
      github,
      git,
      model,
      logs,
      dbFile,
      gates,
      label: async (sender) =>
        (
          await postWebhook(`${url}/api/github/webhooks`, SECRET, {
            event: "issues",
            payload: labeledPayload({ sender, installationId: INSTALLATION, issueNumber: 1 }),
            delivery: `session-world-${++deliveries}`,
          })
        ).status,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The answer scriptResolve gives each single-answer prompt, read back from a model scripted by it. */
function recordAnswers(): Record<string, unknown> {
  const answers: Record<string, unknown> = {};
  scriptResolve({
    script(prompt: string, ...given: unknown[]) {
      answers[prompt] ??= given[0];
      return this;
    },
  } as unknown as ScriptedModel);
  return answers;
}
