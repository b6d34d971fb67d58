import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import type { CliIo } from "../../src/cli/io.js";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: {}, cwd: process.cwd() };
  return { io, out: () => out.join(""), err: () => err.join("") };
}

describe("magis command", () => {
  it("prints its version", async () => {
    const c = capture();
    expect(await main(["--version"], c.io)).toBe(0);
    expect(c.out()).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it("lists every subcommand in --help", async () => {
    const c = capture();
    expect(await main(["--help"], c.io)).toBe(0);
    for (const name of ["locate", "resolve", "eval", "serve"]) expect(c.out()).toContain(name);
  });

  it("answers an unknown command with one line and exit code 2", async () => {
    const c = capture();
    expect(await main(["frobnicate"], c.io)).toBe(2);
    expect(c.err().trim().split("\n")).toHaveLength(1);
    expect(c.err()).toContain("unknown command 'frobnicate'");
  });

  it("answers a bad flag with one line and exit code 2", async () => {
    const c = capture();
    expect(await main(["locate", "--no-such-flag"], c.io)).toBe(2);
    expect(c.err().trim().split("\n")).toHaveLength(1);
    expect(c.err()).toContain("--no-such-flag");
  });
});
