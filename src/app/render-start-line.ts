import type { ServeRole } from "../jobs/job-queue.js";
import type { SandboxChoice } from "../sandbox/index.js";

/** What a started `magis serve` tells of itself. */
export interface StartFacts {
  role: ServeRole;
  appId: number;
  /** Where it takes GitHub's webhooks; absent in a worker. */
  webhookPath?: string;
  /** The smee.io channel the webhooks are relayed from (WEBHOOK_PROXY_URL). */
  webhookProxyUrl?: string;
  /** DATABASE_URL, of which only the host, port and database are told. */
  databaseUrl?: string;
  /** The SQLite file, where DATABASE_URL is not set. */
  sqliteFile?: string;
  /** What runs the repositories' commands; absent in a web process, which runs no job. */
  sandbox?: SandboxChoice;
  /** OPENAI_BASE_URL, of which the credentials are not told; absent for OpenAI's API. */
  modelBaseUrl?: string;
}

/**
 * The one line `magis serve` logs once it serves: its role, the app, where the webhooks come in, the store, the
 * sandbox and the model endpoint. It holds no secret: a URL's user, password and query are left out.
 */
export function renderStartLine(facts: StartFacts): string {
  const parts = [`role ${facts.role}`, `App ID ${facts.appId}`];
  if (facts.webhookPath) {
    parts.push(`webhooks at POST ${facts.webhookPath}${facts.webhookProxyUrl ? ` (relayed from ${withoutCredentials(facts.webhookProxyUrl)})` : ""}`);
  } else {
    parts.push("no webhooks (a worker)");
  }
  parts.push(facts.databaseUrl ? `store PostgreSQL ${postgresPlace(facts.databaseUrl)}` : `store SQLite ${facts.sqliteFile}`);
  if (facts.sandbox) {
    const { sandbox } = facts;
    parts.push(
      sandbox.sandbox ? `sandbox: repository commands run ${sandbox.sandbox.description}` : `sandbox: none, repository commands do not run: ${sandbox.why}`,
    );
  }
  if (facts.role !== "web") parts.push(`model endpoint ${facts.modelBaseUrl ? withoutCredentials(facts.modelBaseUrl) : "OpenAI's API"}`);
  return `magis serve: ${parts.join("; ")}`;
}

/** A PostgreSQL URL's host, port and database (`db.example:5432/magis`), or where a socket's `host` parameter points. */
function postgresPlace(databaseUrl: string): string {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return "(DATABASE_URL is not a URL)";
  }
  const host = url.hostname || url.searchParams.get("host") || "localhost";
  return `${host}${url.port ? `:${url.port}` : ""}${url.pathname.length > 1 ? url.pathname : ""}`;
}

/** A URL with no user, password, query or fragment. */
function withoutCredentials(address: string): string {
  try {
    const url = new URL(address);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return "(not a URL)";
  }
}
