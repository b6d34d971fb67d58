import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { Probot } from "probot";
import { openDatabase } from "../../../src/backends/sqlite/database.js";
import { SqliteBackend } from "../../../src/backends/sqlite/sqlite-backend.js";
import type { JobQueue } from "../../../src/jobs/job-queue.js";
import type { RunningServer } from "../../../src/server/listen-on.js";
import { createSessionAuth, type Viewer } from "../../../src/server/session-auth.js";
import { sessionPages, type SessionAccess, type SessionPages, type SessionPagesOptions } from "../../../src/server/serve-session-pages.js";
import type { StreamTiming } from "../../../src/server/session/stream-entries.js";
import { startWebhookServer } from "../../../src/server/start-webhook-server.js";
import type { SessionEntry } from "../../../src/session/types.js";
import type { JobRecord } from "../../../src/store/jobs.js";
import { jobKey } from "../../../src/store/jobs.js";
import { steerFromPage } from "../../../src/app/steer-from-page.js";
import { appPrivateKey } from "../../support/app-private-key.js";

/** The session pages served by the real web server over a real SQLite store and queue, with the real sign-in. */
export interface SessionPagesRig {
  url: string;
  backend: SqliteBackend;
  queue: JobQueue;
  logs: string[];
  /** Records a job (and starts it on the queue when `running`, where it runs until it is cancelled). */
  addJob(options?: { running?: boolean; number?: number }): Promise<JobRecord>;
  /** Appends entries to a job's session as the recorder would. */
  record(jobId: number, entries: SessionEntry[]): Promise<void>;
  /** Signs `login` in through /auth/github/login and the callback; returns the session cookie to send. */
  signIn(login: string): Promise<string>;
  /** The CSRF token the page of job `jobId` carries for `cookie`. */
  csrfOf(cookie: string, jobId: number): Promise<string>;
  stop(): Promise<void>;
}

/** Who may do what in the rig's repository: the access decision of session-access.ts, as a table the test sets. */
export type Permissions = Record<string, SessionAccess>;

const OWNER = "octo";
const REPO = "demo";
const USERS: Record<string, Viewer> = { writer: { login: "writer", id: 1 }, reader: { login: "reader", id: 2 }, stranger: { login: "stranger", id: 3 } };

/**
 * Starts the rig. The sign-in's exchange of a code with GitHub is the one part not real here: the code GitHub would
 * send back names the user (the whole flow through the fake GitHub's OAuth endpoints is the browser test's).
 */
export async function startSessionPagesRig(
  options: {
    /** Who may do what; the rig reads it on every request, so a test may change it while a stream is open. */
    permissions?: Permissions;
    approvers?: string[];
    timing?: Partial<StreamTiming>;
    maxStreams?: number;
    maxStreamsPerViewer?: number;
    /** Replaces the permissions table's decision (one that fails, say). */
    access?: SessionPagesOptions["access"];
    /** Sees each question of who may approve. */
    onMayApprove?: (login: string) => void;
  } = {},
): Promise<SessionPagesRig> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-session-pages-"));
  const logs: string[] = [];
  const log = pino({ level: "debug" }, { write: (line: string) => void logs.push(line) });
  const backend = new SqliteBackend(openDatabase(path.join(dir, "magis.db")));
  await backend.migrate(log);
  const queue = backend.createQueue(
    async (_job, progress) => {
      progress.stage("work");
      await new Promise((resolve) => progress.signal.addEventListener("abort", resolve, { once: true }));
      const reason = progress.signal.reason as Error;
      return { status: "cancelled", detail: reason.message, stage: "work" };
    },
    { log, role: "all", concurrency: 4, lostAfterMs: 60_000, onAbandoned: async () => {} },
  );
  await queue.start();
  const permissions: Permissions = options.permissions ?? { writer: "write", reader: "read" };
  // The pages are made once the server's address is known: the sign-in's links are under it.
  const made: { pages?: SessionPages } = {};
  const probot = new Probot({ appId: 1, privateKey: appPrivateKey(), secret: "s3cret", log });
  const server: RunningServer = await startWebhookServer({
    probot,
    app: () => {},
    host: "127.0.0.1",
    port: 0,
    role: "web",
    pages: () => made.pages,
    timeouts: { headersMs: 2_000, requestMs: 3_000 },
  });
  const url = `http://127.0.0.1:${server.port}`;
  const auth = createSessionAuth({
    publicUrl: url,
    clientId: "Iv1.client",
    secret: "a-signing-key-for-tests-only-0123456789",
    webUrl: `${url}/fake-github`,
    exchangeCode: async (code) => {
      const user = USERS[code];
      if (!user) throw new Error(`bad_verification_code ${code}`);
      return user;
    },
  });
  made.pages = sessionPages({
    auth,
    jobs: backend.store.jobs,
    sessions: backend.store.sessions,
    ...steerFromPage({ store: backend.store, queue }),
    access:
      options.access ?? (async (viewer: Viewer | null, job: JobRecord) => (viewer && job.owner === OWNER ? (permissions[viewer.login] ?? "none") : "none")),
    mayApprove: async (viewer) => {
      options.onMayApprove?.(viewer.login);
      return (options.approvers ?? ["writer"]).includes(viewer.login);
    },
    log,
    timing: { pollMs: 100, keepaliveMs: 15_000, settleMs: 1_000, recheckMs: 180_000, ...options.timing },
    maxStreams: options.maxStreams,
    maxStreamsPerViewer: options.maxStreamsPerViewer,
  });
  let deliveries = 0;
  const rig: SessionPagesRig = {
    url,
    backend,
    queue,
    logs,
    async addJob({ running = true, number = 1 } = {}) {
      const job = {
        delivery: `d-${++deliveries}`,
        key: jobKey(OWNER, REPO, number),
        kind: "resolve-issue",
        installationId: 7,
        owner: OWNER,
        repo: REPO,
        number,
        payload: {},
      };
      if (!running) return (await backend.store.jobs.add(job))!;
      const submitted = await queue.submit(job, "wait");
      if (submitted.status !== "queued") throw new Error(`the job was not queued: ${submitted.status}`);
      const id = submitted.job.id;
      for (let i = 0; i < 100 && (await backend.store.jobs.get(id))!.status !== "running"; i++) await new Promise((r) => setTimeout(r, 20));
      return (await backend.store.jobs.get(id))!;
    },
    async record(jobId, entries) {
      await backend.store.sessions.append(
        jobId,
        entries.map((entry) => ({ at: Date.now(), kind: entry.kind, data: JSON.stringify(entry.data) })),
      );
    },
    async signIn(login) {
      const start = await fetch(`${url}/auth/github/login?return_to=/`, { redirect: "manual" });
      const state = new URL(start.headers.get("location")!).searchParams.get("state")!;
      const signInCookie = start.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
      const back = await fetch(`${url}/auth/github/callback?code=${login}&state=${state}`, { redirect: "manual", headers: { cookie: signInCookie } });
      const session = back.headers.getSetCookie().find((c) => c.startsWith("magis_session="));
      if (!session) throw new Error(`no session cookie for ${login}: ${back.status}`);
      return session.split(";")[0]!;
    },
    async csrfOf(cookie, jobId) {
      const page = await (await fetch(`${url}/jobs/${jobId}`, { headers: { cookie } })).text();
      const token = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
      if (!token) throw new Error(`the page of job ${jobId} has no CSRF token`);
      return token;
    },
    async stop() {
      await server.stop();
      await queue.stop(0);
      await backend.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return rig;
}
