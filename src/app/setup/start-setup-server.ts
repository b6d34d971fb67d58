import crypto from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { OctokitClass } from "../../github/types.js";
import { projectDocs } from "../../lib/project-docs.js";
import { listenOn, type RunningServer } from "../../server/listen-on.js";
import { answer, opsEndpoints } from "../../server/serve-ops-endpoints.js";
import { CALLBACK_PATH as SIGN_IN_CALLBACK_PATH } from "../../server/session-auth.js";
import { WEBHOOK_PATH } from "../../server/start-webhook-server.js";
import type { Settings } from "../settings/settings-table.js";
import { looksUnreachable } from "./looks-unreachable.js";
import { readAppManifest } from "./read-app-manifest.js";
import { registerApp, type RegisteredApp } from "./register-app.js";
import { renderExistingAppPage, renderRegisteredPage, renderRegisterPage, renderSetupProblem, type SetupFacts } from "./render-setup-pages.js";

/** Where the setup server listens, what it reads and where it writes the app's credentials. */
export interface SetupServerOptions {
  settings: Pick<Settings, "server" | "github">;
  /** The .env file `magis serve` reads; the registered app's settings are written there. */
  envFile: string;
  /** The GitHub client class (bounded by MAGIS_GITHUB_TIMEOUT_MS) the manifest's code is exchanged with. */
  Octokit: OctokitClass;
  log: Logger;
}

/**
 * Serves the setup page of an app not registered yet: GET / registers a new GitHub App from app.yml (GitHub's manifest
 * flow, its webhook URL WEBHOOK_PROXY_URL or this server's address and /api/github/webhooks), GET /setup/existing says
 * what to set for an app registered already, and GET /setup/registered takes GitHub's code and writes the credentials
 * to `envFile`. It reaches no third party (no smee.io channel is made): where GitHub could not deliver, the page and
 * the start's log say what to set. /healthz answers; /readyz answers 503 saying the app is not registered.
 */
export async function startSetupServer(options: SetupServerOptions): Promise<RunningServer> {
  const { settings, envFile, log } = options;
  const manifestFor = readAppManifest();
  const github = settings.github.gheHost ? `${settings.github.gheProtocol ?? "https"}://${settings.github.gheHost}` : "https://github.com";
  const apiBaseUrl = settings.github.gheHost ? `${github}/api/v3` : "https://api.github.com";
  const proxy = settings.server.webhookProxyUrl;
  // GitHub hands the state back with the code: a code this server did not ask for is refused, not written to .env.
  const state = crypto.randomBytes(16).toString("hex");
  let registered: RegisteredApp | undefined;
  const ops = opsEndpoints({ ready: () => Promise.reject(new Error(notRegistered(envFile))), log });
  const facts = (request: IncomingMessage): SetupFacts => {
    const base = baseUrl(request);
    const webhookUrl = proxy ?? `${base}${WEBHOOK_PATH}`;
    return { webhookUrl, envFile, ...(!proxy && looksUnreachable(base) ? { unreachable: unreachableAdvice(base, envFile) } : {}) };
  };
  // The address people reach this server at, where GitHub can reach it too (not behind a webhook proxy, not loopback):
  // the session pages' sign-in comes back there, and MAGIS_PUBLIC_URL is written with it.
  const publicAddress = (request: IncomingMessage): string | null => {
    const base = baseUrl(request);
    return proxy || looksUnreachable(base) ? null : base;
  };
  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://setup");
    if (request.method !== "GET") return answer(response, 404, "text/plain", "not found");
    if (url.pathname === "/") {
      const seen = facts(request);
      const publicUrl = publicAddress(request);
      const manifest = JSON.stringify(
        manifestFor({
          webhook: seen.webhookUrl,
          redirect: `${baseUrl(request)}/setup/registered`,
          ...(publicUrl ? { callback: `${publicUrl}${SIGN_IN_CALLBACK_PATH}` } : {}),
        }),
      );
      const form = {
        createAppUrl: `${github}/settings/apps/new?state=${state}`,
        orgCreateAppUrl: `${github}/organizations/ORG/settings/apps/new?state=${state}`,
        manifest,
      };
      return answer(response, 200, "text/html; charset=utf-8", renderRegisterPage(seen, form));
    }
    if (url.pathname === "/setup/existing") return answer(response, 200, "text/html; charset=utf-8", renderExistingAppPage(facts(request)));
    if (url.pathname !== "/setup/registered") return answer(response, 404, "text/plain", "not found: the setup page is at /");
    const problem = (status: number, text: string) => answer(response, status, "text/html; charset=utf-8", renderSetupProblem(text));
    if (registered) {
      return problem(
        409,
        `This server registered ${registered.name} already and wrote its settings to ${registered.envFile}: start magis serve again to serve it.`,
      );
    }
    const code = url.searchParams.get("code");
    if (!code || url.searchParams.get("state") !== state) {
      return problem(
        400,
        "This address carries no registration this server started (its code or state is missing or not this server's): register the app from the setup page.",
      );
    }
    try {
      const publicUrl = publicAddress(request);
      registered = await registerApp(code, { Octokit: options.Octokit, apiBaseUrl, envFile, ...(publicUrl ? { publicUrl } : {}) });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      log.error({ reason }, `registering the app failed: ${reason}`);
      return problem(502, `Registering the app failed: ${reason}`);
    }
    log.info(
      `registered the GitHub App ${registered.name} (App ID ${registered.id}): wrote its settings to ${registered.envFile} and its key to ${registered.keyFile}; add OPENAI_API_KEY (or OPENAI_BASE_URL) and MAGIS_MODEL there, then start magis serve again`,
    );
    answer(response, 200, "text/html; charset=utf-8", renderRegisteredPage(facts(request), registered));
  };
  const server = http.createServer((request, response) => {
    if (ops(request, response)) return;
    serve(request, response).catch((error: unknown) => {
      log.error({ err: error }, "the setup page failed");
      if (!response.headersSent) answer(response, 500, "text/plain", "the setup page failed: see the server's log");
    });
  });
  const running = await listenOn(server, settings.server.host, settings.server.port, log);
  const address = `http://${settings.server.host}:${running.port}`;
  log.info(
    `setup mode: the GitHub App is not registered (no APP_ID and private key). Open ${address} to register it from app.yml; for an app registered already, set APP_ID, PRIVATE_KEY_PATH and WEBHOOK_SECRET in ${envFile} and start magis serve again (${projectDocs("app.md#set-it-up")})`,
  );
  if (!proxy) {
    log.warn(
      `GitHub delivers the app's webhooks to the address its setup page is opened at, and cannot reach localhost or a private address: open it at this server's public HTTPS address, or set WEBHOOK_PROXY_URL in ${envFile} to a channel made at https://smee.io/new (development) and start magis serve again`,
    );
  }
  return running;
}

/** Why /readyz answers 503 in setup mode, and what to do. */
function notRegistered(envFile: string): string {
  return `the GitHub App is not registered: register it on the setup page (GET /), or set APP_ID, PRIVATE_KEY_PATH and WEBHOOK_SECRET in ${envFile} and start again`;
}

/** What to set when GitHub could not deliver to this server's address `base`. */
function unreachableAdvice(base: string, envFile: string): string {
  return `${base} is an address only this machine or its network has. Open this page at the public HTTPS address GitHub reaches this server by (a reverse proxy, a tunnel), or set WEBHOOK_PROXY_URL in ${envFile} to a channel made at https://smee.io/new (development: smee.io relays each delivery, and anyone with the channel's address can read them), then start magis serve again.`;
}

/** The address the browser reached this server by (a reverse proxy's X-Forwarded-* first). */
function baseUrl(request: IncomingMessage): string {
  const first = (header: string | string[] | undefined) => (Array.isArray(header) ? header[0] : header)?.split(",")[0]?.trim();
  const protocol = first(request.headers["x-forwarded-proto"]) === "https" ? "https" : "http";
  const host = first(request.headers["x-forwarded-host"]) ?? request.headers.host ?? "localhost";
  return `${protocol}://${host}`;
}
