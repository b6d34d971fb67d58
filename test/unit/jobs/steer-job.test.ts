import { describe, expect, it } from "vitest";
import { approvePlan, findApproval, openPlanWait } from "../../../src/jobs/steer-job.js";
import type { JobRecord } from "../../../src/store/jobs.js";
import type { NewSessionRow, SessionRow, SessionStore } from "../../../src/store/sessions.js";
import type { JobStore } from "../../../src/store/store.js";

/** A session in memory: the store's numbering and reading, nothing else. */
function memorySessions(): SessionStore & { rows: SessionRow[] } {
  const rows: SessionRow[] = [];
  return {
    rows,
    append: async (jobId: number, added: readonly NewSessionRow[]) => {
      for (const row of added) rows.push({ ...row, jobId, seq: rows.length + 1 });
    },
    read: async (_jobId: number, options: { afterSeq?: number } = {}) => rows.filter((r) => r.seq > (options.afterSeq ?? 0)),
    bytes: async () => 0,
    prune: async () => 0,
    forget: async () => 0,
  };
}

function jobsWith(status: JobRecord["status"]): JobStore {
  return { get: async (id: number) => ({ id, status }) as JobRecord } as unknown as JobStore;
}

const wait = (until: number) => ({ at: 1, kind: "plan-wait", data: JSON.stringify({ until, summary: "the plan" }) });

describe("approvePlan", () => {
  it("appends a go to a running job's open plan-wait, once", async () => {
    const sessions = memorySessions();
    await sessions.append(1, [{ at: 1, kind: "stage", data: "{}" }, wait(Date.now() + 60_000)]);
    expect(await approvePlan(sessions, jobsWith("running"), 1, { by: "octocat", guidance: "keep it small", via: "comment" })).toBe(true);
    expect(findApproval(sessions.rows, 2)).toEqual({ action: "go", by: "octocat", guidance: "keep it small", via: "comment" });
    // Answered: nothing waits any more.
    expect(await approvePlan(sessions, jobsWith("running"), 1, { by: "hubot", via: "page" })).toBe(false);
    expect(sessions.rows).toHaveLength(3);
  });

  it("refuses a job that is not running, has no plan-wait, or whose wait ran out", async () => {
    const waiting = memorySessions();
    await waiting.append(1, [wait(Date.now() + 60_000)]);
    expect(await approvePlan(waiting, jobsWith("succeeded"), 1, { by: "octocat", via: "comment" })).toBe(false);
    expect(await approvePlan(memorySessions(), jobsWith("running"), 1, { by: "octocat", via: "comment" })).toBe(false);
    const late = memorySessions();
    await late.append(1, [wait(Date.now() - 1)]);
    expect(await approvePlan(late, jobsWith("running"), 1, { by: "octocat", via: "comment" })).toBe(false);
  });
});

describe("openPlanWait", () => {
  it("takes the last plan-wait, closed by a steer or the outcome after it", () => {
    const rows = (kinds: string[]): SessionRow[] =>
      kinds.map((kind, i) => ({ jobId: 1, seq: i + 1, at: 1, kind, data: kind === "plan-wait" ? JSON.stringify({ until: 10, summary: "" }) : "{}" }));
    expect(openPlanWait(rows(["plan-wait", "steer", "plan-wait"]), 5)?.seq).toBe(3);
    expect(openPlanWait(rows(["plan-wait", "outcome"]), 5)).toBeNull();
    expect(openPlanWait(rows(["plan-wait"]), 10)).toBeNull();
  });
});
