import { describe, expect, it } from "vitest";
import { runEscapeProbes, type Sandbox } from "../../../src/sandbox/index.js";

/** A sandbox whose every command "passes" printing `output` for a read of the bot's /proc entries, nothing otherwise. */
function answering(output: string): Sandbox {
  return {
    kind: "bwrap",
    label: "in a test",
    description: "in a test",
    setupNetwork: false,
    setupAllowHosts: [],
    prepare: () => undefined,
    run: async (command) => ({
      outcome: command.startsWith(`cat /proc/${process.pid}/cmdline`) ? "passed" : "failed",
      exitCode: command.startsWith(`cat /proc/${process.pid}/cmdline`) ? 0 : 1,
      output: command.startsWith(`cat /proc/${process.pid}/cmdline`) ? output : "",
      outputBytes: output.length,
      durationMs: 1,
    }),
  };
}

describe("the probe of the bot's process through /proc", () => {
  const verdict = async (output: string) =>
    (await runEscapeProbes(answering(output))).results.find((r) => r.tried === "read the bot's process through /proc")!.verdict;

  it("is contained when the bot's number names another process of the sandbox (in a container the bot is pid 1 or 2)", async () => {
    expect(await verdict("/bin/sh\0-c\0sleep 1\0PATH=/usr/bin\0")).toBe("contained");
  });

  it("is an escape when the bot's own command line comes back", async () => {
    const fs = await import("node:fs");
    expect(await verdict(fs.readFileSync(`/proc/${process.pid}/cmdline`, "utf8") + "HOME=/root\0")).toBe("escaped");
  });
});
