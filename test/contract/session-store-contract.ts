import { describe, expect, it } from "vitest";
import type { NewJob } from "../../src/store/jobs.js";
import type { NewSessionRow } from "../../src/store/sessions.js";
import { START, type ContractContext } from "./contract-context.js";

/** A job of `owner/repo`, issue 1. */
function newJob(delivery: string, owner = "octo", repo = "widgets"): NewJob {
  return { delivery, key: `${owner}/${repo}#1`.toLowerCase(), kind: "resolve-issue", installationId: 1, owner, repo, number: 1, payload: {} };
}

/** An entry of kind `note` whose data is `{"text": text}`. */
const note = (text: string, at = START): NewSessionRow => ({ at, kind: "note", data: JSON.stringify({ text }) });

/** The contract of jobs' sessions (SessionStore). */
export function describeSessionContract(context: ContractContext): void {
  const store = context.store;
  const sessions = () => store().sessions;
  /** Records a job and appends one entry to its session; gives its id. */
  async function jobWithSession(delivery: string, owner?: string, repo?: string): Promise<number> {
    const job = await store().jobs.add(newJob(delivery, owner, repo));
    await sessions().append(job!.id, [note(delivery)]);
    return job!.id;
  }

  describe("sessions", () => {
    it("gives a job's entries back in the order appended, numbered 1, 2, 3 … after those it held, apart from other jobs'", async () => {
      await sessions().append(1, [note("a", START), note("b", START + 5)]);
      await sessions().append(2, [note("other")]);
      await sessions().append(1, [{ at: START + 9, kind: "stage", data: '{"name":"locate","state":"started"}' }]);
      await sessions().append(1, []);
      expect(await sessions().read(1)).toEqual([
        { jobId: 1, seq: 1, at: START, kind: "note", data: '{"text":"a"}' },
        { jobId: 1, seq: 2, at: START + 5, kind: "note", data: '{"text":"b"}' },
        { jobId: 1, seq: 3, at: START + 9, kind: "stage", data: '{"name":"locate","state":"started"}' },
      ]);
      expect(await sessions().read(2)).toEqual([{ jobId: 2, seq: 1, at: START, kind: "note", data: '{"text":"other"}' }]);
      expect(await sessions().read(3)).toEqual([]);
    });

    it("reads from after a number, at most a limit", async () => {
      await sessions().append(
        7,
        Array.from({ length: 10 }, (_, i) => note(`e${i + 1}`)),
      );
      const seqs = async (options: { afterSeq?: number; limit?: number }) => (await sessions().read(7, options)).map((row) => row.seq);
      expect(await seqs({ afterSeq: 4 })).toEqual([5, 6, 7, 8, 9, 10]);
      expect(await seqs({ afterSeq: 4, limit: 3 })).toEqual([5, 6, 7]);
      expect(await seqs({ limit: 2 })).toEqual([1, 2]);
      expect(await seqs({ afterSeq: 10 })).toEqual([]);
      expect(await seqs({ afterSeq: 0, limit: 0 })).toEqual([]);
    });

    it("numbers the entries of two appenders of one job, on two connections at once, without a gap or a duplicate", async () => {
      const twin = await context.twin();
      const appendMany = (target: typeof sessions, who: string) =>
        Promise.all(Array.from({ length: 25 }, (_, i) => target().append(5, [note(`${who}${i}.1`), note(`${who}${i}.2`)])));
      await Promise.all([appendMany(sessions, "a"), appendMany(() => twin.sessions, "b")]);
      const rows = await twin.sessions.read(5);
      expect(rows.map((row) => row.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      // Each append's entries stay together, in their order.
      const texts = rows.map((row) => (JSON.parse(row.data) as { text: string }).text);
      for (let i = 0; i < texts.length; i += 2) expect(texts[i + 1]).toBe(texts[i]!.replace(/\.1$/, ".2"));
      expect(new Set(texts).size).toBe(100);
    });

    it("counts the characters of JSON a session holds, in UTF-16 code units as the writer counts them", async () => {
      expect(await sessions().bytes(9)).toBe(0);
      await sessions().append(9, [note("x".repeat(100)), note("Ünïcödé — 世界 🚀")]);
      await sessions().append(10, [note("not this one")]);
      expect(await sessions().bytes(9)).toBe(JSON.stringify({ text: "x".repeat(100) }).length + JSON.stringify({ text: "Ünïcödé — 世界 🚀" }).length);
    });

    it("gives any JSON text back exactly: escapes, CJK, emoji, 100 kB", async () => {
      const data = JSON.stringify({ text: `<script>\u0000\r\n</details> 世界 🚀 ${"y".repeat(100_000)}`, n: [1, 2.5, null] });
      await sessions().append(11, [{ at: START, kind: "command", data }]);
      expect((await sessions().read(11))[0]!.data).toBe(data);
    });

    it("prunes the sessions of jobs that ended before the time given, keeping those of queued and running jobs and of jobs that ended since", async () => {
      const ended = {
        succeeded: await jobWithSession("d-succeeded"),
        failed: await jobWithSession("d-failed"),
        cancelled: await jobWithSession("d-cancelled"),
      };
      const declined = (await store().jobs.add(newJob("d-declined"), "declined", "another job runs"))!.id;
      await sessions().append(declined, [note("declined")]);
      const queued = await jobWithSession("d-queued");
      const running = await jobWithSession("d-running");
      await store().jobs.start(running, "locate");
      await store().jobs.start(ended.succeeded, "locate");
      await store().jobs.succeed(ended.succeeded, "https://github.com/octo/widgets/pull/2");
      await store().jobs.fail(ended.failed, "the model refused");
      await store().jobs.cancel([ended.cancelled], "the issue was closed");
      context.advance(1000);
      const later = await jobWithSession("d-later");
      await store().jobs.fail(later, "the model refused");

      expect(await sessions().prune(START + 1000)).toBe(4);
      for (const id of [...Object.values(ended), declined]) expect(await sessions().read(id)).toEqual([]);
      for (const id of [queued, running, later]) expect(await sessions().read(id)).toHaveLength(1);
      expect(await sessions().prune(START + 1000)).toBe(0);
      // A running job's session stays however old it is.
      expect(await sessions().prune(START + 10 ** 9)).toBe(1);
      expect(await sessions().read(running)).toHaveLength(1);
    });

    it("forgets the sessions of jobs of the repositories named and of the accounts named, in any case, and nothing else", async () => {
      const widgets = await jobWithSession("d-1", "Octo", "Widgets");
      const gadgets = await jobWithSession("d-2", "octo", "gadgets");
      const tool = await jobWithSession("d-3", "octo", "my_tool");
      const others = [await jobWithSession("d-4", "octopus", "widgets"), await jobWithSession("d-5", "oct", "o"), await jobWithSession("d-6", "octo_x", "y")];
      await sessions().append(widgets, [note("second")]);

      expect(await sessions().forget({ repos: ["octo/widgets", "nobody/nothing"] })).toBe(1);
      expect(await sessions().read(widgets)).toEqual([]);
      expect(await sessions().read(gadgets)).toHaveLength(1);
      // `_` and `%` are characters, not wildcards.
      expect(await sessions().forget({ owners: ["oct_", "oc%"], repos: ["octo/my%"] })).toBe(0);
      expect(await sessions().forget({ owners: ["OCTO"] })).toBe(2);
      for (const id of [gadgets, tool]) expect(await sessions().read(id)).toEqual([]);
      for (const id of others) expect(await sessions().read(id)).toHaveLength(1);
      expect(await sessions().forget({})).toBe(0);
      expect(await sessions().forget({ repos: ["octo_x/y"], owners: ["oct"] })).toBe(2);
      expect(await sessions().read(others[0]!)).toHaveLength(1);
    });
  });
}
