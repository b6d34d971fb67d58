import path from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { COMMANDS } from "../../src/cli/command-table.js";
import type { CliIo } from "../../src/cli/io.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The source files `entry` loads before any of its code runs: its static imports, followed, not its import() calls. */
async function loadedUpFront(entry: string): Promise<Set<string>> {
  const { metafile } = await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    bundle: true,
    write: false,
    platform: "node",
    format: "esm",
    packages: "external",
    metafile: true,
    logLevel: "silent",
  });
  const loaded = new Set<string>();
  const visit = (file: string) => {
    if (loaded.has(file)) return;
    loaded.add(file);
    for (const edge of metafile.inputs[file]?.imports ?? []) if (edge.kind === "import-statement" && !edge.external) visit(edge.path);
  };
  visit(entry);
  return loaded;
}

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

  it("lists each command with its summary, and each command's module is the one it names", async () => {
    const c = capture();
    expect(await main(["--help"], c.io)).toBe(0);
    for (const entry of COMMANDS) {
      expect(c.out()).toMatch(new RegExp(`^  ${entry.name} +${entry.summary.replace(/[()|]/g, "\\$&")}$`, "m"));
      const command = await entry.load();
      expect(command.name).toBe(entry.name);
      expect(command.usage).toContain(`magis ${entry.name}`);
    }
  });

  // Loading every command's modules (the pipeline, the store, the language servers, the app) took seconds of a
  // loaded machine before `magis --help` printed or one command began its work.
  it("loads no command's module until that command runs", async () => {
    const upFront = await loadedUpFront("src/cli.ts");
    // The door, its table, the helpers every layer may use, the config's error (not the config's schema, which loads zod).
    const door = /^src\/(cli\.ts|cli\/(io|command-table)\.ts|lib\/[^/]+\.ts|config-error\.ts)$/;
    expect([...upFront].filter((file) => !door.test(file))).toEqual([]);
    const c = capture();
    expect(await main(["locate", "--help"], c.io)).toBe(0);
    expect(c.out()).toContain("Usage: magis locate");
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
