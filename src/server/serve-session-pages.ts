import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { redactSecrets } from "../lib/redact-secrets.js";
import { renderSessionPage, type SessionPageOptions } from "../session/render-session-page.js";
import { endedWith, SESSION_LIVE_SCRIPT, sessionEndMessage, sessionEventMessage } from "../session/session-live-script.js";
import type { JobRecord } from "../store/jobs.js";
import type { SessionStore } from "../store/sessions.js";
import type { JobStore } from "../store/store.js";
import { SIGN_OUT_PATH, type SessionAuth, type Viewer } from "./session-auth.js";
import { SESSION_HEADERS, sendHtml, sendMessage, sendNotFound, sendRedirect } from "./session/page-headers.js";
import { readForm } from "./session/read-form.js";
import { recordOutcome } from "./session/record-outcome.js";
import { storedEntry } from "../session/stored-entry.js";
import { DEFAULT_STREAM_TIMING, hasEnded, streamEntries, type StreamTiming } from "./session/stream-entries.js";

/** What a viewer may do with a job's session: nothing (the page is a 404), read it, or also stop the job. */
export type SessionAccess = "none" | "read" | "write";

/**
 * What the session pages are served from: the sign-in, the store they read, who may see and steer what, and what
 * steering does (src/app/steer-from-page.ts): the pages answer HTTP and leave the jobs to the app.
 */
export interface SessionPagesOptions {
  auth: SessionAuth;
  jobs: JobStore;
  sessions: SessionStore;
  /**
   * The viewer's access to a job's session (src/app/session-access.ts): `none` for a signed-out visitor unless the
   * repository's sessions are public. An error (the installation removed, the repository deleted) is answered as `none`.
   */
  access: (viewer: Viewer | null, job: JobRecord) => Promise<SessionAccess>;
  /** Whether the viewer may approve the job's plan: the same people who may trigger it (its config's `allowed_permissions`). */
  mayApprove: (viewer: Viewer, job: JobRecord) => Promise<boolean>;
  /** Stops a queued or running job, as removing its label does, naming who; false when there was nothing to stop. */
  stop: (job: JobRecord, by: string) => Promise<boolean>;
  /** Approves the job's waiting plan, with the guidance given; false when no plan waits. */
  approve: (job: JobRecord, by: string, guidance?: string) => Promise<boolean>;
  /** Whether the job waits for its plan's approval now (Go is shown, and who may approve is asked, only then). */
  planWaitOpen: (job: JobRecord) => Promise<boolean>;
  /** Prices for model calls the recorder did not price. */
  prices?: SessionPageOptions["prices"];
  log: Logger;
  timing?: StreamTiming;
  /** Event streams this process keeps open at once (default 200); past it, a page loads without following the job live. */
  maxStreams?: number;
  /** Event streams one viewer keeps open at once (default 8), by signed-in user, else (a public session) by client address. */
  maxStreamsPerViewer?: number;
  now?: () => number;
}

/** The session pages' routes: `handle` answers the request if it is one of them (or of the sign-in); `close` ends the open event streams. */
export interface SessionPages {
  handle(request: IncomingMessage, response: ServerResponse): boolean;
  /** Ends every open event stream (the server is stopping: its `close` waits for open responses). */
  close(): void;
}

/** Where the live script is served: under /jobs/, where no job's id can be (ids are digits). */
export const LIVE_SCRIPT_PATH = "/jobs/live.js";
const JOB_PATH = /^\/jobs\/(\d{1,15})(?:\/(events|stop|go))?$/;
const DEFAULT_MAX_STREAMS = 200;
const DEFAULT_MAX_STREAMS_PER_VIEWER = 8;
/** The longest guidance the Go form sends on (the page's field allows 2,000 characters). */
const MAX_GUIDANCE_CHARS = 2_000;

/**
 * The session pages of the web role (DESIGN.md §12): GET /jobs/<id> (the page, live while the job runs), GET
 * /jobs/<id>/events (its new entries as server-sent events), GET /jobs/live.js (the page's one script), POST
 * /jobs/<id>/stop and /jobs/<id>/go (the buttons), and the sign-in's own routes. A job the viewer may not read is
 * answered as a job that does not exist; a signed-out visitor is sent to sign in first. Every answer carries a strict
 * Content-Security-Policy and is kept by no cache.
 */
export function sessionPages(options: SessionPagesOptions): SessionPages {
  const { auth, log } = options;
  const now = options.now ?? Date.now;
  const timing = options.timing ?? DEFAULT_STREAM_TIMING;
  const maxStreams = options.maxStreams ?? DEFAULT_MAX_STREAMS;
  const maxPerViewer = options.maxStreamsPerViewer ?? DEFAULT_MAX_STREAMS_PER_VIEWER;
  const streams = new Set<AbortController>();
  const perViewer = new Map<string, number>();
  let closing = false;

  /** The job of a request's path and the viewer's access to it; null (answered) when the viewer may not see it. */
  const admit = async (request: IncomingMessage, response: ServerResponse, id: number, page: boolean): Promise<Admitted | null> => {
    const viewer = auth.viewer(request);
    const job = await options.jobs.get(id);
    const access = job ? await accessOf(viewer, job) : "none";
    if (job && access !== "none") return { viewer, job, access };
    // A signed-out visitor learns nothing either: sent to sign in, whether the job exists or not.
    if (!viewer && page) sendRedirect(response, 302, auth.signInUrl(`/jobs/${id}`));
    else sendNotFound(response);
    return null;
  };

  /** The viewer's access; a decision that failed (the installation removed, the repository deleted) is `none`, logged. */
  const accessOf = async (viewer: Viewer | null, job: JobRecord): Promise<SessionAccess> => {
    try {
      return await options.access(viewer, job);
    } catch (failure) {
      const reason = redactSecrets(failure instanceof Error ? failure.message : String(failure));
      log.warn({ job: job.id, reason }, `could not tell who may see job ${job.id} of ${job.owner}/${job.repo}, so nobody does: ${reason}`);
      return "none";
    }
  };

  /**
   * What the page shows of and for its viewer, the same on the page and in its events: who is signed in, and the
   * buttons their permission allows while the job runs (Go only while its plan waits, and only for who may trigger).
   */
  const viewerOptions = async (request: IncomingMessage, { viewer, job, access }: Admitted, waiting: boolean): Promise<SessionPageOptions> => {
    const csrfToken = viewer ? auth.csrfToken(request) : null;
    if (!viewer || !csrfToken) return { prices: options.prices };
    const running = !hasEnded(job.status);
    const approve = running && waiting && (await options.mayApprove(viewer, job));
    return {
      prices: options.prices,
      viewer: { login: viewer.login, signOutUrl: SIGN_OUT_PATH, csrfToken },
      ...(running && {
        actions: { csrfToken, ...(access === "write" && { stopUrl: `/jobs/${job.id}/stop` }), ...(approve && { goUrl: `/jobs/${job.id}/go` }) },
      }),
    };
  };

  const servePage = async (request: IncomingMessage, response: ServerResponse, id: number) => {
    const admitted = await admit(request, response, id, true);
    if (!admitted) return;
    const rows = await options.sessions.read(id);
    const { job } = admitted;
    const running = !hasEnded(job.status);
    const lastSeq = rows.at(-1)?.seq ?? 0;
    const entries = rows.map(storedEntry);
    // A job whose record ended with no outcome in its session (failed as lost) says what the record says, not "running".
    const page = renderSessionPage(running ? entries : endedWith(entries, recordOutcome(job)), {
      ...(running && { live: liveOf(id, lastSeq) }),
      ...(await viewerOptions(request, admitted, running && (await options.planWaitOpen(job)))),
    });
    sendHtml(response, 200, page);
  };

  const serveEvents = async (request: IncomingMessage, response: ServerResponse, id: number) => {
    const admitted = await admit(request, response, id, false);
    if (!admitted) return;
    const afterSeq = lastSeen(request);
    const { viewer, job } = admitted;
    if (streams.size >= maxStreams) {
      response.writeHead(503, { ...SESSION_HEADERS, "retry-after": "30", "content-type": "text/plain; charset=utf-8" });
      response.end(`this server follows ${maxStreams} jobs live at once already; reload the page in a minute\n`);
      return;
    }
    // One viewer (a user, or an address for a public session) may not hold the whole process's streams.
    const who = viewer ? `user ${viewer.id}` : `address ${request.socket.remoteAddress ?? "unknown"}`;
    const held = perViewer.get(who) ?? 0;
    if (held >= maxPerViewer) {
      response.writeHead(429, { ...SESSION_HEADERS, "retry-after": "30", "content-type": "text/plain; charset=utf-8" });
      response.end(`you follow ${maxPerViewer} jobs live at once already; close some of their pages, then reload this one\n`);
      return;
    }
    // The buttons as the page showed them, and the live mark in the header the events render anew. Who may approve is
    // asked only while a plan waits: at the start, or when a plan starts waiting while the stream runs.
    const live = { live: liveOf(id, afterSeq) };
    const running = !hasEnded(job.status);
    let asked = running && (await options.planWaitOpen(job));
    let pageOptions: SessionPageOptions = { ...live, ...(await viewerOptions(request, admitted, asked)) };
    const controller = new AbortController();
    streams.add(controller);
    perViewer.set(who, held + 1);
    request.socket.once("close", () => controller.abort());
    try {
      await streamEntries(response, {
        jobs: options.jobs,
        sessions: options.sessions,
        jobId: id,
        afterSeq,
        message: async (entry, session) => {
          if (entry.kind === "plan-wait" && !asked) {
            asked = true;
            pageOptions = { ...live, ...(await viewerOptions(request, admitted, true)) };
          }
          return sessionEventMessage(entry, session, pageOptions);
        },
        ending: (session, record) => sessionEndMessage(session, recordOutcome(record), pageOptions),
        stillAllowed: async () => (await accessOf(viewer, (await options.jobs.get(id)) ?? job)) !== "none",
        timing,
        signal: controller.signal,
        now,
      });
    } finally {
      streams.delete(controller);
      const left = (perViewer.get(who) ?? 1) - 1;
      if (left > 0) perViewer.set(who, left);
      else perViewer.delete(who);
      // The server is stopping: the connection goes too, or it would stay open, idle, until its keep-alive ran out.
      if (closing) request.socket.end();
    }
  };

  const serveSteer = async (request: IncomingMessage, response: ServerResponse, id: number, action: "stop" | "go") => {
    const admitted = await admit(request, response, id, false);
    if (!admitted) return;
    const { viewer, job, access } = admitted;
    if (!viewer) return sendMessage(response, 403, "Sign in first", "Only a signed-in user with permission on the repository may steer its jobs.");
    const form = await readForm(request);
    if (!form.ok) return sendMessage(response, 400, "Not sent", form.why);
    if (!auth.checkCsrf(request, form.fields.get("csrf") ?? undefined)) {
      return sendMessage(
        response,
        403,
        "Refused",
        "This form did not come from the job's page (its CSRF token is missing or wrong). Reload the page and use its button.",
      );
    }
    const back = `/jobs/${id}`;
    if (action === "stop") {
      if (access !== "write") return sendMessage(response, 403, "Not allowed", `Stopping a job needs write permission on ${job.owner}/${job.repo}.`);
      if (!(await options.stop(job, viewer.login))) {
        return sendMessage(response, 409, "Nothing to stop", "This job has ended already.");
      }
      log.info({ job: id, by: viewer.login }, `job ${id} stopped from its session page by @${viewer.login}`);
      return sendRedirect(response, 303, back);
    }
    if (!(await options.mayApprove(viewer, job))) {
      return sendMessage(response, 403, "Not allowed", `Approving the plan needs the permission that may trigger MAGIS on ${job.owner}/${job.repo}.`);
    }
    const guidance = (form.fields.get("guidance") ?? "").trim().slice(0, MAX_GUIDANCE_CHARS);
    if (!(await options.approve(job, viewer.login, guidance || undefined))) {
      return sendMessage(
        response,
        409,
        "Not waiting",
        "This job is not waiting for its plan to be approved (it was approved already, it ended, or its wait ran out).",
      );
    }
    log.info({ job: id, by: viewer.login }, `job ${id}'s plan approved from its session page by @${viewer.login}`);
    sendRedirect(response, 303, back);
  };

  const route = (request: IncomingMessage, response: ServerResponse): Promise<void> | null => {
    const path = (request.url ?? "/").split("?")[0]!;
    if (path === LIVE_SCRIPT_PATH) {
      if (request.method !== "GET") return methodNotAllowed(response, "GET");
      response.writeHead(200, { ...SESSION_HEADERS, "content-type": "text/javascript; charset=utf-8" }).end(SESSION_LIVE_SCRIPT);
      return Promise.resolve();
    }
    const match = JOB_PATH.exec(path);
    if (!match) return null;
    const id = Number(match[1]);
    const sub = match[2];
    const method = sub === "stop" || sub === "go" ? "POST" : "GET";
    if (request.method !== method) return methodNotAllowed(response, method);
    if (sub === "events") return serveEvents(request, response, id);
    if (sub === "stop" || sub === "go") return serveSteer(request, response, id, sub);
    return servePage(request, response, id);
  };

  return {
    handle(request, response) {
      if (auth.handle(request, response)) return true;
      const served = route(request, response);
      if (!served) return false;
      served.catch((failure: unknown) => {
        const reason = redactSecrets(failure instanceof Error ? failure.message : String(failure));
        log.error({ reason, url: request.url }, `the session page ${request.url} failed: ${reason}`);
        if (!response.headersSent) sendMessage(response, 500, "Something went wrong", "The page could not be made just now; try again in a minute.");
        else response.end();
      });
      return true;
    },
    close() {
      closing = true;
      for (const stream of streams) stream.abort();
    },
  };
}

/** A request for a job the viewer may see: who they are (null when signed out on a public repository), the job, their access. */
interface Admitted {
  viewer: Viewer | null;
  job: JobRecord;
  access: Exclude<SessionAccess, "none">;
}

/** The served page's live part: its stream (from the entry after `afterSeq`) and its script. */
function liveOf(id: number, afterSeq: number): NonNullable<SessionPageOptions["live"]> {
  return { eventsUrl: `/jobs/${id}/events?after=${afterSeq}`, scriptUrl: LIVE_SCRIPT_PATH };
}

/** The last entry the viewer has: the Last-Event-ID an EventSource sends when it reconnects, else the page's `after`. */
function lastSeen(request: IncomingMessage): number {
  const header = request.headers["last-event-id"];
  const query = new URL(request.url ?? "/", "http://this.server").searchParams.get("after");
  const seen = Number(typeof header === "string" && header !== "" ? header : (query ?? 0));
  return Number.isSafeInteger(seen) && seen >= 0 ? seen : 0;
}

function methodNotAllowed(response: ServerResponse, allowed: string): Promise<void> {
  response.writeHead(405, { ...SESSION_HEADERS, allow: allowed, "content-type": "text/plain; charset=utf-8" }).end(`this path answers ${allowed} only\n`);
  return Promise.resolve();
}
