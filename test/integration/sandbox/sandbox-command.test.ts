import os from "node:os";
import { describe, expect, it } from "vitest";
import { main } from "../../../src/cli.js";

async function check(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(["sandbox", "check", ...args], { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), env, cwd: os.tmpdir() });
  return { code, out: out.join(""), err: err.join("") };
}

describe("magis sandbox check", () => {
  it("runs the escape suite through bubblewrap: every probe is contained", async () => {
    const { code, out } = await check([], { PATH: process.env.PATH });
    expect(out).toContain("Repository commands run in a bubblewrap sandbox");
    for (const tried of [
      "read the bot's environment",
      "read the bot's process through /proc",
      "read a file of the host",
      "use a descriptor the bot holds open",
      "read the bot's working directory",
      "write outside its copy",
      "connect to 127.0.0.1",
      "leave a daemon behind",
      "use unbounded processes",
    ])
      expect(out).toMatch(new RegExp(`contained\\s+${tried.replace(/[()/.]/g, "\\$&")}`));
    expect(out).toContain("All contained.");
    expect(code).toBe(0);
  });

  it("with --no-sandbox: shows what is open, and fails", async () => {
    const { code, out } = await check(["--no-sandbox"], { PATH: process.env.PATH, SOME_SETTING: "x" });
    expect(out).toContain("without a sandbox");
    expect(out).toMatch(/ESCAPED\s+read the bot's process through \/proc/);
    expect(out).toMatch(/ESCAPED\s+read a file of the host/);
    expect(out).toMatch(/ESCAPED\s+connect to 127\.0\.0\.1/);
    expect(out).toMatch(/ESCAPED\s+leave a daemon behind/);
    expect(out).toMatch(/ESCAPED\s+read the bot's working directory/);
    expect(out).toMatch(/\d+ of \d+ got out\./);
    expect(code).toBe(1);
  });

  it("where bubblewrap is not installed: says so and what to do", async () => {
    const { code, err } = await check([], { PATH: "/nonexistent" });
    expect(err).toContain("no sandbox works on this machine (bubblewrap is not installed (apt-get install bubblewrap))");
    expect(code).toBe(1);
    const wanted = await check([], { PATH: "/nonexistent", MAGIS_SANDBOX: "bwrap" });
    expect(wanted.err).toContain("MAGIS_SANDBOX=bwrap, but bubblewrap is not installed");
  });

  it("refuses an unknown action, saying the one there is", async () => {
    const err: string[] = [];
    const code = await main(["sandbox", "open"], { stdout: () => {}, stderr: (t) => void err.push(t), env: {}, cwd: os.tmpdir() });
    expect(code).toBe(2);
    expect(err.join("")).toContain("unknown sandbox action 'open': the one there is is `magis sandbox check`");
  });
});
