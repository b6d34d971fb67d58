import { describe, expect, it } from "vitest";
import { SESSION_BOUNDS, SessionRecorder } from "../../../src/session/record-session.js";
import { memorySink } from "../../../src/session/record/memory-sink.js";
import { boundText, tailText } from "../../../src/session/record/bound-text.js";
import type { ModelCallEntry, SessionEntry } from "../../../src/session/types.js";
import type { NewSessionRow } from "../../../src/store/sessions.js";

const TOKEN = "ghs_abcdefghijklmnopqrstuvwxyz0123456789";
const KEY = "my-own-model-key-1234";

function recorder(options: Partial<ConstructorParameters<typeof SessionRecorder>[0]> = {}) {
  const memory = memorySink();
  let clock = 1000;
  const session = new SessionRecorder({ sink: memory.sink, secrets: [TOKEN, KEY], now: () => clock++, ...options });
  return { session, memory };
}

function modelCall(content: string, extra: Partial<ModelCallEntry> = {}): SessionEntry {
  return {
    kind: "model-call",
    data: {
      agent: "manager",
      prompt: "manager-plan",
      promptHash: "abc",
      model: "gpt-test",
      promptTokens: 1000,
      completionTokens: 500,
      ms: 12,
      messages: [{ role: "user", content }],
      raw: "ok",
      parsed: null,
      ...extra,
    },
  };
}

function command(tail: string): SessionEntry {
  return { kind: "command", data: { sandbox: "in bubblewrap", command: "pytest", outcome: "failed", exitCode: 1, durationMs: 5, tail } };
}

const stage = (name: string, state: "started" | "ended"): SessionEntry => ({ kind: "stage", data: { name, state } });

describe("SessionRecorder", () => {
  it("hands entries to the sink in the order recorded, numbered and stamped", async () => {
    const { session, memory } = recorder();
    session.record(stage("locate", "started"));
    session.record(modelCall("hello"));
    session.record(stage("locate", "ended"));
    await session.close();
    const entries = memory.entries();
    expect(entries.map((e) => [e.seq, e.kind])).toEqual([
      [1, "stage"],
      [2, "model-call"],
      [3, "stage"],
    ]);
    expect(entries.map((e) => e.at)).toEqual([1000, 1001, 1002]);
    expect(entries[2]!.data).toEqual({ name: "locate", state: "ended" });
  });

  it("flushes by itself within a quarter of a second, and never two batches at once", async () => {
    const batches: number[] = [];
    let inFlight = 0;
    let overlapped = false;
    const sink = async (rows: NewSessionRow[]) => {
      inFlight += 1;
      overlapped ||= inFlight > 1;
      await new Promise((resolve) => setTimeout(resolve, 30));
      batches.push(rows.length);
      inFlight -= 1;
    };
    const session = new SessionRecorder({ sink, secrets: [], now: Date.now });
    session.record(stage("a", "started"));
    session.record(stage("a", "ended"));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(batches).toEqual([2]);
    session.record(stage("b", "started"));
    void session.flush();
    session.record(stage("b", "ended"));
    await session.flush();
    expect(batches).toEqual([2, 1, 1]);
    expect(overlapped).toBe(false);
  });

  it("redacts the job's secrets and credential shapes in a prompt, a command's output and a diff", async () => {
    const { session, memory } = recorder();
    session.record(modelCall(`clone https://x-access-token:${TOKEN}@github.com/o/r and use ${KEY}`));
    session.record(command(`Authorization: Bearer ${TOKEN}\nkey=${KEY}`));
    session.record({
      kind: "progress",
      data: {
        stage: "attempt",
        path: "a.py",
        attempt: { diff: `+TOKEN = "${TOKEN}"\n+KEY = "${KEY}"`, verdict: "approve" } as never,
      },
    });
    await session.close();
    const text = JSON.stringify(memory.entries());
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(KEY);
    expect(text.match(/\[redacted\]/g)!.length).toBeGreaterThanOrEqual(5);
  });

  it("keeps a 5 MB diff's head and tail within the entry's bound, saying how much was cut", async () => {
    const { session, memory } = recorder();
    const diff = `--- a/first.py\n${"+x = 1\n".repeat(750_000)}--- a/last.py\n+end = True\n`;
    expect(diff.length).toBeGreaterThan(5_000_000);
    session.record({
      kind: "result",
      data: { patch: diff, usage: { calls: 0, byAgent: {} as never, wallMs: 1 } },
    });
    session.record(modelCall(diff));
    await session.close();
    const [result, call] = memory.entries();
    const patch = (result!.data as { patch: string }).patch;
    expect(patch.length).toBeLessThanOrEqual(SESSION_BOUNDS.entryChars);
    expect(patch.length).toBeGreaterThan(SESSION_BOUNDS.stringChars);
    expect(patch.startsWith("--- a/first.py")).toBe(true);
    expect(patch.endsWith("+end = True\n")).toBe(true);
    expect(patch).toMatch(/\[[\d,]+ characters cut\]/);
    const message = (call!.data as ModelCallEntry).messages[0]!.content;
    expect(message.length).toBeLessThanOrEqual(SESSION_BOUNDS.stringChars);
  });

  it("bounds the session: 300 entries of 100 KB end in one truncated entry, then only stages, the result and the outcome", async () => {
    const { session, memory } = recorder();
    const big = "y".repeat(100_000);
    const messages = Array.from({ length: 7 }, () => ({ role: "user", content: "z".repeat(14_000) }));
    for (let i = 0; i < 300; i += 1) {
      session.record(stage(`s${i}`, "started"));
      session.record(modelCall("", { messages }));
    }
    session.record({ kind: "note", data: { text: "after the bound" } });
    session.record({ kind: "result", data: { patch: big, usage: { calls: 0, byAgent: {} as never, wallMs: 1 } } });
    session.record({ kind: "outcome", data: { status: "succeeded", detail: "done" } });
    await session.close();
    const entries = memory.entries();
    const total = entries.reduce((sum, e) => sum + JSON.stringify(e.data).length, 0);
    expect(total).toBeLessThanOrEqual(SESSION_BOUNDS.sessionChars);
    expect(session.bytes).toBe(total);
    const truncated = entries.findIndex((e) => e.kind === "truncated");
    expect(truncated).toBeGreaterThan(100);
    expect(entries.filter((e) => e.kind === "truncated")).toHaveLength(1);
    const after = entries.slice(truncated + 1);
    expect(new Set(after.map((e) => e.kind))).toEqual(new Set(["stage", "result", "outcome"]));
    expect(after.filter((e) => e.kind === "stage")).toHaveLength(300 - entries.slice(0, truncated).filter((e) => e.kind === "stage").length);
    expect(entries.at(-1)!.kind).toBe("outcome");
  });

  it("writes the outcome even past the bound", async () => {
    const { session, memory } = recorder({ maxBytes: 2_000, maxEntryBytes: 1_000 });
    for (let i = 0; i < 100; i += 1) session.record(stage(`stage number ${i}`, "started"));
    session.record({ kind: "outcome", data: { status: "failed", detail: "out of time" } });
    await session.close();
    const entries = memory.entries();
    expect(entries.at(-1)!.kind).toBe("outcome");
    expect(entries.filter((e) => e.kind === "stage").length).toBeLessThan(100);
  });

  it("tells a failing sink's error once, without secrets, and goes on recording", async () => {
    const told: unknown[] = [];
    let calls = 0;
    const rows: NewSessionRow[] = [];
    const sink = async (batch: NewSessionRow[]) => {
      calls += 1;
      if (calls <= 2) throw new Error(`database down for ${TOKEN}`);
      rows.push(...batch);
    };
    const session = new SessionRecorder({ sink, secrets: [TOKEN], now: Date.now, onSinkError: (error) => told.push(error) });
    session.record(stage("a", "started"));
    await expect(session.flush()).resolves.toBeUndefined();
    session.record(stage("b", "started"));
    await session.flush();
    session.record(stage("c", "started"));
    await session.close();
    expect(told).toHaveLength(1);
    expect(String(told[0])).toContain("database down");
    expect(String(told[0])).not.toContain(TOKEN);
    expect(rows.map((r) => JSON.parse(r.data).name)).toEqual(["c"]);
  });

  it("never throws from record, even for an entry that cannot be written as JSON", async () => {
    const { session, memory } = recorder();
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => session.record(modelCall("x", { parsed: circular }))).not.toThrow();
    expect(() => session.record(modelCall("y", { parsed: 10n }))).not.toThrow();
    session.record(stage("a", "started"));
    await session.close();
    expect(memory.entries().map((e) => e.kind)).toEqual(["model-call", "stage"]);
    expect(JSON.stringify(memory.entries()[0]!.data)).toContain("[nested too deep]");
  });

  it("drops what comes after close", async () => {
    const { session, memory } = recorder();
    session.record(stage("a", "started"));
    await session.close();
    session.record(stage("a", "ended"));
    await session.flush();
    expect(memory.entries()).toHaveLength(1);
  });

  it("prices model calls and the result from the operator's table", async () => {
    const prices = new Map([["gpt-test", { prompt: 2, completion: 10 }]]);
    const { session, memory } = recorder({ prices });
    session.record(modelCall("x"));
    session.record(modelCall("y", { model: "unpriced" }));
    const usage = { promptTokens: 1_000_000, completionTokens: 100_000, totalTokens: 1_100_000, calls: 3, model: "gpt-test" };
    const idle = { promptTokens: 0, completionTokens: 0, totalTokens: 0, calls: 0, model: "unpriced" };
    session.record({ kind: "result", data: { patch: "", usage: { calls: 3, byAgent: { manager: usage, developer: idle } as never, wallMs: 1 } } });
    await session.close();
    const [priced, unpriced, result] = memory.entries();
    expect((priced!.data as ModelCallEntry).usd).toBeCloseTo(0.007);
    expect((unpriced!.data as ModelCallEntry).usd).toBeUndefined();
    expect((result!.data as { usd?: number }).usd).toBeCloseTo(3);
  });
});

describe("boundText and tailText", () => {
  it("keep short text whole", () => {
    expect(boundText("abc", 10)).toBe("abc");
    expect(tailText("abc", 10)).toBe("abc");
  });

  it("cut long text to the bound, never inside a surrogate pair", () => {
    const text = "😀".repeat(10_000);
    const cut = boundText(text, 1_001);
    expect(cut.length).toBeLessThanOrEqual(1_001);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it("keep a command's last lines, from a line's start", () => {
    const output = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join("\n");
    const tail = tailText(output, 300);
    expect(tail.length).toBeLessThanOrEqual(300);
    expect(tail.endsWith("line 999")).toBe(true);
    expect(tail).toMatch(/characters cut\] …\nline \d+\n/);
  });
});
