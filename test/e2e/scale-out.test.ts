import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { LOST_REASON } from "../../src/backends/postgres/postgres-queue.js";
import { parsePrometheusText } from "../support/parse-prometheus-text.js";
import { buildDist } from "../support/build-dist.js";
import { OWNER, REPO, startScaleRig, type ScaleRig } from "../support/scale-rig.js";
import type { ServeProcess } from "../support/serve-process.js";
import { commentPayload, labeledPayload, pullCommentPayload } from "./payloads.js";

const ISSUES = [1, 2, 3, 4, 5];
const FINAL_STATUSES = ["succeeded", "failed", "declined", "cancelled"];
/** The stages of a run before it pushes anything: a worker killed there leaves nothing half-published. */
const BEFORE_PUBLISHING = ["start", "locate", "plan", "kickoff"];
/** What every status comment says while its run is under way (an issue's run, a pull request's revision). */
const UNDER_WAY = "### 👀 MAGIS";

/**
 * Each issue's webhooks come from an installation of its own. Probot paces an installation's writes to GitHub at one a
 * second in each process (a run makes about 13), so with one installation the jobs would mostly wait on that pacing.
 */
const installationOf = (issue: number) => 100 + issue;

interface JobRow {
  id: number;
  delivery: string;
  key: string;
  kind: string;
  number: number;
  status: string;
  stage: string | null;
  detail: string | null;
  worker: string | null;
  started_at: number | null;
  updated_at: number;
}

async function until<T>(what: string, look: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await look();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("magis serve at scale: one web and two worker processes sharing one PostgreSQL database", () => {
  let rig: ScaleRig | undefined;

  // The processes run bin/magis.js, which loads dist/.
  beforeAll(() => buildDist(), 180_000);

  afterEach(async () => {
    // Every process group is stopped (SIGTERM, then SIGKILL), every server closed, the database and folder removed.
    const processes = rig?.processes ?? [];
    await rig?.close();
    rig = undefined;
    for (const child of processes) expect(() => process.kill(-child.pid, 0), `process group ${child.pid} (${child.role}) is gone`).toThrow();
  });

  it("20 deliveries for 5 issues with redeliveries, a worker killed mid-job: every trigger decided once, every job ends once, one at a time per issue in arrival order, the lost jobs reported, the survivor drains the queue", async () => {
    rig = await startScaleRig({ issues: ISSUES.length, latencyMs: 150, workerLostSeconds: 3, concurrency: 2 });
    const scale = rig;
    // The worker to be killed runs two jobs at once; the survivor three, so it has a slot free for a job that must wait
    // for another of its issue: only the issue's line in the queue holds it back.
    const [web, victim, survivor] = await Promise.all([scale.serve("web"), scale.serve("worker"), scale.serve("worker", { MAGIS_JOBS_CONCURRENCY: "3" })]);
    const sent: string[] = [];
    const send = async (event: string, payload: unknown, delivery: string) => {
      const { status } = await scale.deliver(web!, event, payload, delivery);
      expect(status, `delivery ${delivery}`).toBe(200);
      sent.push(delivery);
    };
    let commentId = 9000;
    const comment = <T extends { comment: { id: number } }>(payload: T): T => {
      payload.comment.id = commentId++;
      return payload;
    };
    const retry = (issueNumber: number) => comment(commentPayload({ body: "/magis retry", installationId: installationOf(issueNumber), issueNumber }));
    const jobs = async (): Promise<JobRow[]> =>
      (await scale.db.query("SELECT * FROM jobs ORDER BY id")).rows.map((row) => ({
        ...row,
        id: Number(row.id),
        started_at: row.started_at === null ? null : Number(row.started_at),
        updated_at: Number(row.updated_at),
      }));
    const workerIdOf = async (child: ServeProcess) =>
      (await scale.db.query("SELECT id FROM magis_workers WHERE pid = $1", [child.pid])).rows[0]?.id as string | undefined;
    const statusOf = (jobId: number) => scale.github.comments.find((c) => c.body.includes(`<!-- magis:status job=${jobId} -->`));

    // 1. A label on each issue, three of them delivered twice; `/magis retry` on each at once (declined: its issue is busy), two delivered twice.
    for (const n of ISSUES) await send("issues", labeledPayload({ installationId: installationOf(n), issueNumber: n }), `label-${n}`);
    for (const n of [1, 2, 3]) await send("issues", labeledPayload({ installationId: installationOf(n), issueNumber: n }), `label-${n}`);
    const early = ISSUES.map((n) => ({ n, payload: retry(n) }));
    for (const { n, payload } of early) await send("issue_comment", payload, `retry-early-${n}`);
    for (const { n, payload } of early.filter(({ n }) => n === 1 || n === 4)) await send("issue_comment", payload, `retry-early-${n}`);

    // 2. The victim is killed (SIGKILL, its whole process group) while it runs two jobs that have not reached publishing.
    const [killedId, survivorId] = await until("both workers' heartbeats", async () => {
      const found = await Promise.all([victim!, survivor!].map(workerIdOf));
      return found.every(Boolean) && (found as string[]);
    });
    await until(
      "the victim running two jobs before they publish",
      async () => (await jobs()).filter((j) => j.worker === killedId && j.status === "running" && BEFORE_PUBLISHING.includes(j.stage!)).length === 2,
    );
    victim!.kill("SIGKILL");
    const killedAt = Date.now();
    expect((await victim!.exited).signal).toBe("SIGKILL");
    const atKill = await jobs();
    const lost = atKill.filter((j) => j.worker === killedId && j.status === "running");
    expect(lost).toHaveLength(2);

    // 3. Within the lost-worker bound (3 s, then a heartbeat), the survivor fails them and says so on their issues.
    await until("the lost jobs reported on their issues", async () => {
      const now = await jobs();
      return lost.every((l) => now.find((j) => j.id === l.id)!.status === "failed" && statusOf(l.id)?.body.includes("stopped answering"));
    });
    expect(Date.now() - killedAt).toBeLessThan(3_000 + 7_000);

    // 4. Where the survivor's first run ended: `/magis retry` (queued), then `/magis revise` on its pull request, queued
    //    behind the retry (same issue); then `/magis retry` where a run was lost. Two of these are delivered twice.
    //    The survivor may have finished its first run before the kill, or not yet claimed one: take any of its label runs.
    const busiest = await until(
      "a label run claimed by the survivor",
      async () => (await jobs()).find((j) => j.worker === survivorId && j.delivery.startsWith("label-"))?.number,
    );
    await until(`the first run on issue ${busiest} to end`, async () =>
      (await jobs()).some((j) => j.delivery === `label-${busiest}` && j.status === "succeeded"),
    );
    await send("issue_comment", retry(busiest), `retry-late-${busiest}`);
    // The desk keeps arrival order per issue or pull request, and the revise comes on the pull request's own line: it is
    // sent once the retry is decided, as a person would, so that the revise queues behind the retry and not before it.
    const outcomeOf = async (delivery: string) =>
      (await scale.db.query("SELECT outcome FROM triggers WHERE delivery = $1", [delivery])).rows[0]?.outcome as string | null | undefined;
    await until(`retry-late-${busiest} decided`, async () => (await outcomeOf(`retry-late-${busiest}`)) ?? false);
    const pull = scale.github.pulls.find((p) => p.head === `magis/issue-${busiest}`)!;
    const revise = comment(
      pullCommentPayload({ body: "/magis revise End line 4 with 'to GitHub'.", installationId: installationOf(busiest), pullNumber: pull.number }),
    );
    await send("issue_comment", revise, `revise-${busiest}`);
    await send("issue_comment", revise, `revise-${busiest}`);
    const [retried, notRetried] = lost.map((j) => j.number);
    const lostRetry = retry(retried!);
    await send("issue_comment", lostRetry, `retry-late-${retried}`);
    await send("issue_comment", lostRetry, `retry-late-${retried}`);
    expect(sent).toHaveLength(20);

    // 5. The survivor drains the queue.
    const expected: Record<string, string> = {
      ...Object.fromEntries(ISSUES.map((n) => [`label-${n}`, "queued"])),
      ...Object.fromEntries(ISSUES.map((n) => [`retry-early-${n}`, "declined"])),
      [`retry-late-${busiest}`]: "queued",
      [`revise-${busiest}`]: "queued",
      [`retry-late-${retried}`]: "queued",
    };
    // A decision acts first (a job queued), then records its outcome: a job may end before its trigger's outcome lands.
    const undecided = async () => Number((await scale.db.query("SELECT count(*) AS n FROM triggers WHERE outcome IS NULL")).rows[0].n);
    const finished = await until(
      "every job to end, and every trigger's outcome recorded",
      async () => {
        const all = await jobs();
        return all.length === Object.keys(expected).length && all.every((j) => FINAL_STATUSES.includes(j.status)) && (await undecided()) === 0 && all;
      },
      60_000,
    );

    // Every delivery is recorded once, decided as its rule says: a job queued, or declined while its issue was busy.
    const triggers = (await scale.db.query("SELECT delivery, outcome FROM triggers")).rows as { delivery: string; outcome: string | null }[];
    expect(Object.fromEntries(triggers.map((t) => [t.delivery, t.outcome]))).toEqual(expected);
    expect(triggers).toHaveLength(new Set(sent).size);
    const notes = scale.github.comments.filter((c) => c.body.startsWith("⏳"));
    expect(
      notes
        .filter((c) => c.body.startsWith("⏳ MAGIS is already working on this issue"))
        .map((c) => c.issue)
        .sort(),
    ).toEqual(ISSUES);
    expect(notes.filter((c) => c.body.startsWith("⏳ MAGIS is still busy with an earlier run")).map((c) => c.issue)).toEqual([pull.number]);

    // Every job ended once, in a final status: one per delivery; the lost ones failed as lost, the declined ones never ran.
    expect(finished.map((j) => j.delivery).sort()).toEqual(Object.keys(expected).sort());
    for (const job of finished) {
      const wanted = lost.some((l) => l.id === job.id)
        ? ["failed", LOST_REASON]
        : job.delivery.startsWith("retry-early-")
          ? ["declined", expect.any(String)]
          : ["succeeded", expect.any(String)];
      expect([job.delivery, job.status, job.detail]).toEqual([job.delivery, ...wanted]);
    }

    // The runs of one issue never overlapped and ran in arrival order: by their records (started … ended), and by what
    // GitHub saw of them (status comment posted … last edited).
    const ran = finished.filter((j) => j.started_at !== null);
    expect(ran).toHaveLength(ISSUES.length + 3);
    const spans = ran.map((job) => {
      const status = statusOf(job.id)!;
      const posted = scale.github.find("POST", /\/issues\/\d+\/comments$/).find((r) => (r.body as { body: string }).body.includes(`job=${job.id} -->`))!;
      const edits = scale.github.find("PATCH", new RegExp(`/issues/comments/${status.id}$`));
      return { job, recorded: [job.started_at!, job.updated_at], seen: [posted.at, Math.max(posted.at, ...edits.map((r) => r.at))] };
    });
    for (const key of new Set(ran.map((j) => j.key))) {
      const line = spans.filter((s) => s.job.key === key).sort((a, b) => a.job.id - b.job.id);
      for (let i = 1; i < line.length; i++) {
        expect(line[i]!.recorded[0], `${key}: run ${line[i]!.job.id} started after run ${line[i - 1]!.job.id} ended`).toBeGreaterThanOrEqual(
          line[i - 1]!.recorded[1]!,
        );
        expect(line[i]!.seen[0], `${key}: GitHub saw run ${line[i]!.job.id} start after run ${line[i - 1]!.job.id} ended`).toBeGreaterThanOrEqual(
          line[i - 1]!.seen[1]!,
        );
      }
    }
    expect(spans.filter((s) => s.job.number === busiest || s.job.number === pull.number).map((s) => s.job.kind)).toEqual([
      "resolve-issue",
      "resolve-issue",
      "revise-pull-request",
    ]);

    // Every status comment reached a final state and never went back; the lost ones say what happened and what to do.
    const statusComments = scale.github.comments.filter((c) => c.body.includes("<!-- magis:status job="));
    expect(statusComments).toHaveLength(ran.length);
    for (const status of statusComments) {
      const firstFinal = status.history.findIndex((body) => !body.includes(UNDER_WAY));
      expect(firstFinal, status.body).toBeGreaterThanOrEqual(0);
      expect(status.history.slice(firstFinal).filter((body) => body.includes(UNDER_WAY))).toEqual([]);
    }
    for (const job of lost) expect(statusOf(job.id)!.body).toContain("😕 MAGIS could not finish this run");
    expect(statusOf(lost.find((j) => j.number === notRetried)!.id)!.body).toContain("/magis retry");

    // The survivor ran every job that started after the kill. Each issue with a successful run has its pull request
    // (the revised one carries the revision); the lost run that was not retried pushed nothing.
    for (const job of ran.filter((j) => j.started_at! > killedAt)) expect(job.worker).toBe(survivorId);
    const fixed = ISSUES.filter((n) => n !== notRetried);
    expect(scale.github.pulls.map((p) => p.head).sort()).toEqual(fixed.map((n) => `magis/issue-${n}`));
    for (const p of scale.github.pulls) expect(p.body).toContain(`Fixes #${p.head.split("-").pop()}`);
    const bare = (...args: string[]) => scale.git.git(`${OWNER}/${REPO}`, ...args);
    expect(bare("for-each-ref", "--format=%(refname:short)", "refs/heads/magis/").split("\n").sort()).toEqual(fixed.map((n) => `magis/issue-${n}`));
    expect(bare("show", `magis/issue-${busiest}:README.md`)).toContain("Please commit your changes before you push them to GitHub.");

    // The survivor counted the lost jobs once; nothing unscripted was asked of the model or of GitHub.
    const metrics = parsePrometheusText(await (await fetch(`${survivor!.url}/metrics`)).text());
    expect(metrics.value("magis_jobs_finished_total", { outcome: "lost" })).toBe(lost.length);
    expect(scale.model.problems).toEqual([]);
    expect(scale.github.unmatched).toEqual([]);
  }, 120_000);
});
