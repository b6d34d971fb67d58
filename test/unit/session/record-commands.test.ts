import { describe, expect, it } from "vitest";
import { recordingSandbox, COMMAND_TAIL_CHARS } from "../../../src/session/record/record-commands.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import type { CommandRun } from "../../../src/sandbox/run-command.js";
import type { SessionEntry } from "../../../src/session/types.js";

function fakeSandbox(runs: CommandRun[]): Sandbox & { prepared: string[] } {
  const prepared: string[] = [];
  return {
    kind: "none",
    description: "uncontained, as the operator chose",
    label: "uncontained",
    setupNetwork: false,
    setupAllowHosts: ["pypi.org"],
    prepared,
    prepare(dir) {
      prepared.push(dir);
    },
    run: async () => runs.shift()!,
  };
}

const options = { dir: "/w", env: {}, timeoutMs: 1000 };

describe("recordingSandbox", () => {
  it("answers as the sandbox does and records each command once it ends", async () => {
    const output = `${"noise\n".repeat(5000)}FAILED test_x`;
    const run: CommandRun = { outcome: "failed", exitCode: 1, output, outputBytes: output.length, durationMs: 12.6 };
    const inner = fakeSandbox([run]);
    const entries: SessionEntry[] = [];
    const sandbox = recordingSandbox(inner, (entry) => entries.push(entry));
    expect([sandbox.kind, sandbox.label, sandbox.description, sandbox.setupNetwork, sandbox.setupAllowHosts]).toEqual([
      "none",
      "uncontained",
      "uncontained, as the operator chose",
      false,
      ["pypi.org"],
    ]);
    sandbox.prepare("/copy");
    expect(inner.prepared).toEqual(["/copy"]);
    expect(await sandbox.run("pytest -x", { ...options, purpose: "tests before" } as never)).toBe(run);
    expect(entries).toHaveLength(1);
    const entry = entries[0]!;
    expect(entry.kind).toBe("command");
    if (entry.kind !== "command") return;
    expect(entry.data).toMatchObject({ sandbox: "uncontained", command: "pytest -x", purpose: "tests before", outcome: "failed", exitCode: 1, durationMs: 13 });
    expect(entry.data.tail.length).toBeLessThanOrEqual(COMMAND_TAIL_CHARS);
    expect(entry.data.tail.endsWith("FAILED test_x")).toBe(true);
  });

  it("keeps the run when recording throws, and says why a command could not run", async () => {
    const run: CommandRun = { outcome: "error", exitCode: null, output: "", outputBytes: 0, durationMs: 1, error: "spawn ENOENT" };
    const entries: SessionEntry[] = [];
    const sandbox = recordingSandbox(fakeSandbox([run, run]), (entry) => entries.push(entry));
    await sandbox.run("x", options);
    expect(entries[0]).toMatchObject({ kind: "command", data: { tail: "spawn ENOENT", outcome: "error" } });
    const throwing = recordingSandbox(fakeSandbox([run]), () => {
      throw new Error("full");
    });
    await expect(throwing.run("x", options)).resolves.toBe(run);
  });
});
