import { afterEach, describe, expect, it } from "vitest";
import type { SessionEntry } from "../../../src/session/types.js";
import { startSessionPagesRig, type SessionPagesRig } from "./session-pages-rig.js";

let rig: SessionPagesRig | undefined;
afterEach(async () => {
  await rig?.stop();
  rig = undefined;
});

const JOB_ENTRY = (id: number): SessionEntry => ({
  kind: "job",
  data: { id, jobKind: "resolve-issue", repository: "octo/demo", number: 1, title: "Spelling error in the README" },
});
const STAGE = (name: string, state: "started" | "ended"): SessionEntry => ({ kind: "stage", data: { name, state } });

/** A form POST as the page's buttons send it. */
function post(url: string, cookie: string | undefined, fields: Record<string, string>) {
  return fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie && { cookie }) },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Reads server-sent events from `url` until `until` says so (or the stream ends); returns the events' ids and data. */
async function readEvents(url: string, cookie: string, until: (events: { id: string; data: string }[]) => boolean, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers: { cookie, ...headers } });
  const events: { id: string; data: string }[] = [];
  const comments: string[] = [];
  if (!response.body) return { response, events, comments, closed: true };
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let closed = false;
  while (!until(events)) {
    const { value, done } = await reader.read();
    if (done) {
      closed = true;
      break;
    }
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const lines = block.split("\n");
      for (const line of lines) if (line.startsWith(":")) comments.push(line);
      const id = lines.find((l) => l.startsWith("id: "))?.slice(4);
      const data = lines
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .join("\n");
      if (id !== undefined && data) events.push({ id, data });
    }
  }
  if (!closed) await reader.cancel();
  return { response, events, comments, closed };
}

describe("GET /jobs/<id>", () => {
  it("shows a reader the page, live while the job runs, with the strict headers", async () => {
    rig = await startSessionPagesRig();
    const job = await rig.addJob();
    await rig.record(job.id, [JOB_ENTRY(job.id), STAGE("locate", "started")]);
    const cookie = await rig.signIn("reader");
    const response = await fetch(`${rig.url}/jobs/${job.id}`, { headers: { cookie } });
    expect(response.status).toBe(200);
    const csp = response.headers.get("content-security-policy")!;
    for (const part of ["default-src 'none'", "script-src 'self'", "img-src 'self' data:", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) {
      expect(csp).toContain(part);
    }
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("referrer-policy")).toBe("same-origin");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const page = await response.text();
    expect(page).toContain("octo/demo");
    expect(page).toContain(`data-events="/jobs/${job.id}/events?after=2"`);
    expect(page).toContain(`<script src="/jobs/live.js" defer></script>`);
    // A reader gets no Stop button.
    expect(page).not.toContain(`/jobs/${job.id}/stop`);
  });

  it("gives a writer the Stop button with the session's CSRF token", async () => {
    rig = await startSessionPagesRig();
    const job = await rig.addJob();
    await rig.record(job.id, [JOB_ENTRY(job.id)]);
    const cookie = await rig.signIn("writer");
    const page = await (await fetch(`${rig.url}/jobs/${job.id}`, { headers: { cookie } })).text();
    expect(page).toContain(`action="/jobs/${job.id}/stop"`);
    expect(page).toMatch(/name="csrf" value="[^"]{20,}"/);
  });

  it("answers a stranger with the same 404 as a job that does not exist", async () => {
    rig = await startSessionPagesRig();
    const job = await rig.addJob();
    const cookie = await rig.signIn("stranger");
    const hidden = await fetch(`${rig.url}/jobs/${job.id}`, { headers: { cookie } });
    const missing = await fetch(`${rig.url}/jobs/999999`, { headers: { cookie } });
    expect(hidden.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(await hidden.text()).toBe(await missing.text());
    expect(hidden.headers.get("content-security-policy")).toContain("default-src 'none'");
    for (const path of ["events", "stop", "go"]) {
      const method = path === "events" ? "GET" : "POST";
      const hiddenSub = await fetch(`${rig.url}/jobs/${job.id}/${path}`, { method, headers: { cookie } });
      const missingSub = await fetch(`${rig.url}/jobs/999999/${path}`, { method, headers: { cookie } });
      expect([hiddenSub.status, missingSub.status]).toEqual([404, 404]);
    }
  });

  it("answers the same 404 when the access decision fails (the installation removed), and logs why without secrets", async () => {
    rig = await startSessionPagesRig({
      access: async () => {
        throw new Error("installation 7 is gone (token ghs_abcdefghijklmnopqrstuvwxyz0123456789)");
      },
    });
    const job = await rig.addJob();
    const cookie = await rig.signIn("reader");
    const failed = await fetch(`${rig.url}/jobs/${job.id}`, { headers: { cookie } });
    const missing = await fetch(`${rig.url}/jobs/999999`, { headers: { cookie } });
    expect(failed.status).toBe(404);
    expect(await failed.text()).toBe(await missing.text());
    expect((await fetch(`${rig.url}/jobs/${job.id}/events`, { headers: { cookie } })).status).toBe(404);
    const logs = rig.logs.join("\n");
    expect(logs).toContain(`could not tell who may see job ${job.id} of octo/demo`);
    expect(logs).toContain("installation 7 is gone");
    expect(logs).not.toContain("ghs_abcdefghijklmnopqrstuvwxyz0123456789");
  });

  it("sends a signed-out visitor to sign in and back, whether the job exists or not", async () => {
    rig = await startSessionPagesRig();
    const job = await rig.addJob();
    for (const id of [job.id, 999999]) {
      const response = await fetch(`${rig.url}/jobs/${id}`, { redirect: "manual" });
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get("location")!);
      expect(location.pathname).toBe("/auth/github/login");
      expect(location.searchParams.get("return_to")).toBe(`/jobs/${id}`);
    }
    // The stream and the buttons have nothing to redirect to: a signed-out request is a 404.
    expect((await fetch(`${rig.url}/jobs/${job.id}/events`)).status).toBe(404);
    expect((await post(`${rig.url}/jobs/${job.id}/stop`, undefined, { csrf: "x" })).status).toBe(404);
  });

  it("renders a finished job without the live script or buttons", async () => {
    rig = await startSessionPagesRig();
    const job = await rig.addJob({ running: false });
    await rig.backend.store.jobs.fail(job.id, "it broke");
    await rig.record(job.id, [JOB_ENTRY(job.id), { kind: "outcome", data: { status: "failed", detail: "it broke" } }]);
    const cookie = await rig.signIn("writer");
    const page = await (await fetch(`${rig.url}/jobs/${job.id}`, { headers: { cookie } })).text();
    expect(page).not.toContain("<script");
    expect(page).not.toContain("/stop");
  });

  it("serves the live script under the same policy, and refuses other methods", async () => {
    rig = await startSessionPagesRig();
    const script = await fetch(`${rig.url}/jobs/live.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(script.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await script.text()).toContain("EventSource");
    expect((await fetch(`${rig.url}/jobs/1`, { method: "DELETE" })).status).toBe(405);
    expect((await fetch(`${rig.url}/jobs/1/stop`)).status).toBe(405);
  });
});

describe("GET /jobs/<id>/events", () => {
  it("streams each entry after Last-Event-ID with its seq as the id, then closes once the job has ended", async () => {
    rig = await startSessionPagesRig();
    const job = await rig.addJob();
    await rig.record(job.id, [JOB_ENTRY(job.id), STAGE("locate", "started")]);
    const cookie = await rig.signIn("reader");
    const later = (async () => {
      await new Promise((r) => setTimeout(r, 300));
      await rig!.record(job.id, [STAGE("locate", "ended")]);
      await new Promise((r) => setTimeout(r, 300));
      await rig!.queue.cancel(job.key, "the test ended it");
      await rig!.record(job.id, [{ kind: "outcome", data: { status: "cancelled", detail: "the test ended it" } }]);
    })();
    const stream = await readEvents(`${rig.url}/jobs/${job.id}/events`, cookie, () => false, { "last-event-id": "1" });
    await later;
    expect(stream.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(stream.response.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(stream.closed).toBe(true);
    expect(stream.events.map((e) => e.id)).toEqual(["2", "3", "4"]);
    const last = JSON.parse(stream.events.at(-1)!.data) as { ended: boolean; seq: number };
    expect(last).toMatchObject({ seq: 4, ended: true });
    // Reconnecting after the end: one event that says so (which stops the script), then the stream closes.
    const again = await readEvents(`${rig.url}/jobs/${job.id}/events`, cookie, () => false, { "last-event-id": "4" });
    expect(again.response.status).toBe(200);
    expect(again.closed).toBe(true);
    expect(again.events.map((e) => [e.id, (JSON.parse(e.data) as { ended: boolean }).ended])).toEqual([["4", true]]);
  });

  it("ends the page of a job that failed with no outcome entry (its worker lost): one last event from the record, then the close", async () => {
    rig = await startSessionPagesRig({ timing: { settleMs: 300 } });
    const job = await rig.addJob({ running: false });
    await rig.record(job.id, [JOB_ENTRY(job.id), STAGE("locate", "started")]);
    const cookie = await rig.signIn("reader");
    const later = (async () => {
      await new Promise((r) => setTimeout(r, 300));
      await rig!.backend.store.jobs.fail(job.id, "its worker stopped answering");
    })();
    const stream = await readEvents(`${rig.url}/jobs/${job.id}/events`, cookie, () => false, { "last-event-id": "1" });
    await later;
    expect(stream.closed).toBe(true);
    expect(stream.events.map((e) => e.id)).toEqual(["2", "2"]);
    const last = JSON.parse(stream.events.at(-1)!.data) as { ended: boolean; parts: Record<string, string> };
    expect(last.ended).toBe(true);
    expect(last.parts["session-header"]).toContain('<span class="outcome failed">failed</span>');
    expect(last.parts["session-header"]).toContain("its worker stopped answering");
    expect(last.parts["session-timeline"]).toContain("stopped with the job");
    // A reconnect gets the same end at once, and so does the page: not "running", and not live.
    const again = await readEvents(`${rig.url}/jobs/${job.id}/events`, cookie, () => false, { "last-event-id": "2" });
    expect(again.closed).toBe(true);
    expect(again.events.map((e) => (JSON.parse(e.data) as { ended: boolean }).ended)).toEqual([true]);
    const page = await (await fetch(`${rig.url}/jobs/${job.id}`, { headers: { cookie } })).text();
    expect(page).toContain('<span class="outcome failed">failed</span>');
    expect(page).not.toContain("data-events=");
  });

  it("keeps the live mark in the header it renders anew", async () => {
    rig = await startSessionPagesRig();
    const job = await rig.addJob();
    const cookie = await rig.signIn("reader");
    const later = rig.record(job.id, [JOB_ENTRY(job.id)]);
    const stream = await readEvents(`${rig.url}/jobs/${job.id}/events`, cookie, (events) => events.length >= 1);
    await later;
    const first = JSON.parse(stream.events[0]!.data) as { parts: Record<string, string> };
    expect(first.parts["session-header"]).toContain('<span id="session-live">live</span>');
  });

  it("asks who may approve only once a plan waits, and then offers Go in the stream", async () => {
    const asked: string[] = [];
    rig = await startSessionPagesRig({ approvers: ["writer"], onMayApprove: (login) => asked.push(login) });
    const job = await rig.addJob();
    await rig.record(job.id, [JOB_ENTRY(job.id)]);
    const cookie = await rig.signIn("writer");
    await fetch(`${rig.url}/jobs/${job.id}`, { headers: { cookie } });
    const later = (async () => {
      await new Promise((r) => setTimeout(r, 300));
      expect(asked).toEqual([]);
      await rig!.record(job.id, [{ kind: "plan-wait", data: { until: Date.now() + 60_000, summary: "1. fix README.md" } }]);
    })();
    const stream = await readEvents(`${rig.url}/jobs/${job.id}/events?after=1`, cookie, (events) => events.length >= 1);
    await later;
    expect(asked).toEqual(["writer"]);
    const wait = JSON.parse(stream.events[0]!.data) as { parts: Record<string, string> };
    expect(wait.parts["session-steering"]).toContain(`action="/jobs/${job.id}/go"`);
  });

  it("bounds the streams one viewer keeps open, apart from the others'", async () => {
    rig = await startSessionPagesRig({ maxStreamsPerViewer: 2 });
    const job = await rig.addJob();
    const reader = await rig.signIn("reader");
    const writer = await rig.signIn("writer");
    const open = [
      await fetch(`${rig.url}/jobs/${job.id}/events`, { headers: { cookie: reader } }),
      await fetch(`${rig.url}/jobs/${job.id}/events`, { headers: { cookie: reader } }),
    ];
    expect(open.map((r) => r.status)).toEqual([200, 200]);
    const third = await fetch(`${rig.url}/jobs/${job.id}/events`, { headers: { cookie: reader } });
    expect(third.status).toBe(429);
    expect(await third.text()).toContain("you follow 2 jobs live at once already");
    const other = await fetch(`${rig.url}/jobs/${job.id}/events`, { headers: { cookie: writer } });
    expect(other.status).toBe(200);
    // A stream closed gives its place back.
    await open[0]!.body!.cancel();
    await expect
      .poll(async () => {
        const next = await fetch(`${rig!.url}/jobs/${job.id}/events`, { headers: { cookie: reader } });
        if (next.status === 200) open.push(next);
        else await next.body?.cancel();
        return next.status;
      })
      .toBe(200);
    for (const response of [...open, other]) await response.body?.cancel().catch(() => {});
  });

  it("asks again who may read while a stream is open, and closes it once the viewer may not", async () => {
    const permissions: Record<string, "none" | "read" | "write"> = { reader: "read" };
    rig = await startSessionPagesRig({ permissions, timing: { recheckMs: 200 } });
    const job = await rig.addJob();
    const cookie = await rig.signIn("reader");
    const later = (async () => {
      await new Promise((r) => setTimeout(r, 400));
      permissions.reader = "none";
    })();
    const stream = await readEvents(`${rig.url}/jobs/${job.id}/events`, cookie, () => false);
    await later;
    expect(stream.response.status).toBe(200);
    expect(stream.closed).toBe(true);
    expect((await fetch(`${rig.url}/jobs/${job.id}/events`, { headers: { cookie } })).status).toBe(404);
  });

  it("starts after the page's `after` when there is no Last-Event-ID", async () => {
    rig = await startSessionPagesRig();
    const job = await rig.addJob();
    await rig.record(job.id, [JOB_ENTRY(job.id), STAGE("locate", "started"), STAGE("locate", "ended")]);
    const cookie = await rig.signIn("reader");
    const stream = await readEvents(`${rig.url}/jobs/${job.id}/events?after=2`, cookie, (events) => events.length >= 1);
    expect(stream.events.map((e) => e.id)).toEqual(["3"]);
  });

  it("keeps a silent stream open with comments", async () => {
    rig = await startSessionPagesRig({ timing: { pollMs: 50, keepaliveMs: 200, settleMs: 500 } });
    const job = await rig.addJob();
    const cookie = await rig.signIn("reader");
    const started = Date.now();
    const response = await fetch(`${rig.url}/jobs/${job.id}/events`, { headers: { cookie } });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes(": keepalive") && Date.now() - started < 5_000) text += (await reader.read()).value ?? "";
    await reader.cancel();
    expect(text).toContain(": keepalive");
  });

  it("outlives the server's request timeout: a stream is a long answer, not a slow request", async () => {
    rig = await startSessionPagesRig({ timing: { pollMs: 100, keepaliveMs: 500, settleMs: 500 } });
    const job = await rig.addJob();
    const cookie = await rig.signIn("reader");
    const later = (async () => {
      // The rig's server gives a request 3 s; the entry comes after 4.5.
      await new Promise((r) => setTimeout(r, 4_500));
      await rig!.record(job.id, [STAGE("locate", "started")]);
    })();
    const stream = await readEvents(`${rig.url}/jobs/${job.id}/events`, cookie, (events) => events.length >= 1);
    await later;
    expect(stream.closed).toBe(false);
    expect(stream.events.map((e) => e.id)).toEqual(["1"]);
  }, 15_000);

  it("bounds the streams open at once", async () => {
    rig = await startSessionPagesRig({ maxStreams: 1 });
    const job = await rig.addJob();
    const cookie = await rig.signIn("reader");
    const first = await fetch(`${rig.url}/jobs/${job.id}/events`, { headers: { cookie } });
    expect(first.status).toBe(200);
    const second = await fetch(`${rig.url}/jobs/${job.id}/events`, { headers: { cookie } });
    expect(second.status).toBe(503);
    expect(await second.text()).toContain("reload the page in a minute");
    await first.body!.cancel();
  });

  it("ends open streams when the server stops", async () => {
    rig = await startSessionPagesRig();
    const job = await rig.addJob();
    const cookie = await rig.signIn("reader");
    const response = await fetch(`${rig.url}/jobs/${job.id}/events`, { headers: { cookie } });
    const stopping = rig.stop();
    rig = undefined;
    await stopping;
    // The open stream was ended by the server, not left for its keep-alive to run out.
    const rest = await response.text();
    expect(rest).toContain("retry: 2000");
  });
});

describe("POST /jobs/<id>/stop", () => {
  it("cancels the job as removing the label does, naming who stopped it, after a steer entry", async () => {
    rig = await startSessionPagesRig();
    const job = await rig.addJob();
    const cookie = await rig.signIn("writer");
    const csrf = await rig.csrfOf(cookie, job.id);
    const response = await post(`${rig.url}/jobs/${job.id}/stop`, cookie, { csrf });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/jobs/${job.id}`);
    await rig.queue.drain();
    const record = (await rig.backend.store.jobs.get(job.id))!;
    expect(record.status).toBe("cancelled");
    expect(record.detail).toContain("@writer stopped it on its session page");
    const rows = await rig.backend.store.sessions.read(job.id);
    expect(rows.map((r) => [r.kind, JSON.parse(r.data)])).toContainEqual(["steer", { action: "stop", by: "writer", via: "page" }]);
  });

  it("refuses a form without the session's CSRF token", async () => {
    rig = await startSessionPagesRig();
    const job = await rig.addJob();
    const cookie = await rig.signIn("writer");
    for (const fields of [{}, { csrf: "forged" }] as Record<string, string>[]) {
      const response = await post(`${rig.url}/jobs/${job.id}/stop`, cookie, fields);
      expect(response.status).toBe(403);
      expect(await response.text()).toContain("CSRF token is missing or wrong");
    }
    // Another user's token is no better.
    const readerToken = await rig.csrfOf(await rig.signIn("reader"), job.id);
    expect((await post(`${rig.url}/jobs/${job.id}/stop`, cookie, { csrf: readerToken })).status).toBe(403);
    expect((await rig.backend.store.jobs.get(job.id))!.status).toBe("running");
  });

  it("needs write permission: a reader's stop, with a valid token, is refused", async () => {
    rig = await startSessionPagesRig();
    const job = await rig.addJob();
    const cookie = await rig.signIn("reader");
    const csrf = await rig.csrfOf(cookie, job.id);
    const response = await post(`${rig.url}/jobs/${job.id}/stop`, cookie, { csrf });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("needs write permission on octo/demo");
    expect((await rig.backend.store.jobs.get(job.id))!.status).toBe("running");
    expect(await rig.backend.store.sessions.read(job.id)).toEqual([]);
  });

  it("says so when the job has ended already", async () => {
    rig = await startSessionPagesRig();
    const running = await rig.addJob({ number: 2 });
    const job = await rig.addJob({ running: false });
    await rig.backend.store.jobs.succeed(job.id, "https://github.com/octo/demo/pull/3");
    const cookie = await rig.signIn("writer");
    const csrf = await rig.csrfOf(cookie, running.id);
    const response = await post(`${rig.url}/jobs/${job.id}/stop`, cookie, { csrf });
    expect(response.status).toBe(409);
  });

  it("refuses a body that is not the page's form", async () => {
    rig = await startSessionPagesRig();
    const job = await rig.addJob();
    const cookie = await rig.signIn("writer");
    const response = await fetch(`${rig.url}/jobs/${job.id}/stop`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: "{}" });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("not a form of the session page");
  });
});

describe("POST /jobs/<id>/go", () => {
  const waitFor = (until: number): SessionEntry => ({ kind: "plan-wait", data: { until, summary: "1. fix README.md" } });

  it("approves a waiting plan with the form's guidance, for who may trigger", async () => {
    rig = await startSessionPagesRig({ approvers: ["writer"] });
    const job = await rig.addJob();
    await rig.record(job.id, [JOB_ENTRY(job.id), waitFor(Date.now() + 60_000)]);
    const cookie = await rig.signIn("writer");
    const page = await (await fetch(`${rig.url}/jobs/${job.id}`, { headers: { cookie } })).text();
    expect(page).toContain(`action="/jobs/${job.id}/go"`);
    const csrf = await rig.csrfOf(cookie, job.id);
    const response = await post(`${rig.url}/jobs/${job.id}/go`, cookie, { csrf, guidance: "  keep the wording short  " });
    expect(response.status).toBe(303);
    const steer = (await rig.backend.store.sessions.read(job.id)).filter((r) => r.kind === "steer").map((r) => JSON.parse(r.data));
    expect(steer).toEqual([{ action: "go", by: "writer", via: "page", guidance: "keep the wording short" }]);
    // Answered: a second Go finds nothing waiting.
    expect((await post(`${rig.url}/jobs/${job.id}/go`, cookie, { csrf })).status).toBe(409);
  });

  it("refuses someone who may read but not trigger, and shows them no Go button", async () => {
    rig = await startSessionPagesRig({ approvers: ["writer"] });
    const job = await rig.addJob();
    await rig.record(job.id, [JOB_ENTRY(job.id), waitFor(Date.now() + 60_000)]);
    const cookie = await rig.signIn("reader");
    const page = await (await fetch(`${rig.url}/jobs/${job.id}`, { headers: { cookie } })).text();
    expect(page).not.toContain(`/jobs/${job.id}/go`);
    const csrf = await rig.csrfOf(cookie, job.id);
    const response = await post(`${rig.url}/jobs/${job.id}/go`, cookie, { csrf });
    expect(response.status).toBe(403);
    expect((await rig.backend.store.sessions.read(job.id)).some((r) => r.kind === "steer")).toBe(false);
  });

  it("refuses a Go without the CSRF token", async () => {
    rig = await startSessionPagesRig({ approvers: ["writer"] });
    const job = await rig.addJob();
    await rig.record(job.id, [waitFor(Date.now() + 60_000)]);
    const cookie = await rig.signIn("writer");
    expect((await post(`${rig.url}/jobs/${job.id}/go`, cookie, { guidance: "go" })).status).toBe(403);
  });
});
