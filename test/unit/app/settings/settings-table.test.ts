import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../../../src/cli.js";
import { DOOR_READERS, type Door } from "../../../../src/app/settings/read-settings.js";
import { SETTINGS_TABLE } from "../../../../src/app/settings/settings-table.js";

const SRC = path.resolve(import.meta.dirname, "../../../../src");
const REGISTRY = path.join(SRC, "app/settings");

/**
 * The reads of a variable outside the registry that stay, each with why: a value set in, or passed on to, the
 * environment of a child process.
 */
const WRITES_TO_A_CHILD_ENVIRONMENT = [
  { file: "sandbox/command-env.ts", name: "CI", why: "sets CI=true in the environment of the repository's commands" },
  { file: "sandbox/choose-sandbox.ts", name: "PATH", why: "bwrap is looked for where the door's PATH says, as a shell there would find it" },
  { file: "sandbox/choose-sandbox.ts", name: "LANG", why: "the door's locale is passed on to the sandboxed commands" },
  {
    file: "sandbox/proxy-bridge.ts",
    name: "NODE_OPTIONS",
    why: "a repository's NODE_OPTIONS (in the commands' own variables) is kept from the bridge's node and handed back to the command",
  },
  {
    file: "language-servers/confine-server.ts",
    name: "PATH",
    why: "the language servers' jail is checked once a process: bwrap is looked for where the bot's own PATH says",
  },
  {
    file: "environment/shelf/mount-overlay.ts",
    name: "PATH",
    why: "fuse-overlayfs is looked for where the bot's own PATH says, as bwrap is",
  },
  {
    file: "environment/shelf/keep-set-up-layer.ts",
    name: "PATH",
    why: "the set-up layer is mounted again the way the copy was, with fuse-overlayfs found where the bot's own PATH says",
  },
];

/**
 * The files that may hold the process's environment as a whole, each with why: the doors that hand it to
 * readSettings, and the places that pass it through to a child process (git) on purpose.
 */
const PASS_THROUGH = {
  "cli/io.ts": "the local commands' door: the process's environment, handed to readSettings and to the repository's commands",
  "app/create-services.ts": "Probot's default export (`probot run`) gives no options: the process's environment is read there",
  "git/read-local-history.ts": "git gets the process's environment (HOME, PATH, GIT_*), with a ceiling added",
  "eval/git-env-below.ts": "eval's git commands get the process's environment (HOME, PATH, GIT_*), with a ceiling added",
  "language-servers/confine-server.ts": "the language servers' jail is checked once a process, with bwrap found on the process's own PATH",
  "environment/shelf/mount-overlay.ts": "fuse-overlayfs is found on the process's own PATH when no search path is given",
  "environment/shelf/keep-set-up-layer.ts": "fuse-overlayfs is found on the process's own PATH when no search path is given",
  "language-servers/name-workspace.ts": "git gets the process's environment (HOME, PATH, GIT_*), with a ceiling added",
  "sandbox/proxy-bridge.ts": "the text of the bridge script the sandbox runs: its process.env is the sandboxed command's, not the bot's",
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(file) : file.endsWith(".ts") ? [file] : [];
  });
}

// `env.NAME`, `process.env.NAME`, `env["NAME"]` and `env[`NAME_${…}`]` of an upper-case name, but not a write (`env.CI = …`).
const READ = /\benv(?:\.([A-Z][A-Z0-9_]*)\b(?!\s*=[^=])|\[\s*["'`]([A-Z][A-Z0-9_]*))/g;

describe("the settings table", () => {
  it("documents every row: a variable name, who reads it, what it holds, one sentence on what it does", () => {
    const names = SETTINGS_TABLE.map((row) => row.name);
    expect(new Set(names).size, "a variable is in the table twice").toBe(names.length);
    const keys = SETTINGS_TABLE.map((row) => `${row.part}.${row.key}`);
    expect(new Set(keys).size, "two rows land on one key").toBe(keys.length);
    for (const row of SETTINGS_TABLE) {
      expect(row.name, row.name).toMatch(/^[A-Z][A-Z0-9_]*(<[A-Z]+>)?$/);
      expect(row.readers.length, `${row.name} is read by no one`).toBeGreaterThan(0);
      expect(row.shape, row.name).not.toBe("");
      expect(row.about, `${row.name}: one sentence, from a capital (or a value) to a full stop`).toMatch(/^[A-Z0-9a-z].*\.$/);
      expect(row.about.split(/\.\s+[A-Z]/), `${row.name}: one sentence`).toHaveLength(1);
      if (row.checked) expect(row.fallbackText, `${row.name} says nothing of its default`).not.toBe("");
    }
  });

  it("lists each door's variables in its command's --help, generated from the table", async () => {
    const commands: Record<Door, string[]> = { serve: ["serve"], action: ["action"], cli: ["locate", "resolve"], eval: ["eval"] };
    for (const [door, names] of Object.entries(commands) as Array<[Door, string[]]>) {
      for (const command of names) {
        let help = "";
        await main([command, "--help"], { stdout: (text) => (help += text), stderr: () => {}, env: {}, cwd: process.cwd() });
        for (const row of SETTINGS_TABLE) {
          const reads = row.readers.some((reader) => DOOR_READERS[door].includes(reader));
          expect(help.includes(`  ${row.name}`), `magis ${command} --help ${reads ? "omits" : "lists"} ${row.name}`).toBe(reads);
        }
      }
    }
  });

  it("is the only place that reads an environment variable: no other file in src/ reads one", () => {
    const strays: string[] = [];
    for (const file of sourceFiles(SRC)) {
      if (file.startsWith(REGISTRY + path.sep)) continue;
      const relative = path.relative(SRC, file);
      const text = fs.readFileSync(file, "utf8");
      for (const match of text.matchAll(READ)) {
        const name = match[1] ?? match[2]!;
        if (WRITES_TO_A_CHILD_ENVIRONMENT.some((allowed) => allowed.file === relative && allowed.name === name)) continue;
        strays.push(`${relative}: ${match[0]}`);
      }
      if (/\bprocess\.env\b/.test(text) && !(relative in PASS_THROUGH)) strays.push(`${relative}: process.env`);
      if (/\bwholeNumberFrom\(/.test(text) && relative !== path.join("lib", "env-number.ts")) strays.push(`${relative}: wholeNumberFrom`);
    }
    expect(strays, "read the variable through readSettings and add it to the settings table (src/app/settings/)").toEqual([]);
  });

  it("finds the reads it is there to find", () => {
    const found = (text: string) => [...text.matchAll(READ)].map((match) => match[1] ?? match[2]);
    expect(found("const a = env.MAGIS_DB || x; process.env.PORT; env['HOST']; env[`MAGIS_MODEL_${agent}`]; io.env.OPENAI_API_KEY")).toEqual([
      "MAGIS_DB",
      "PORT",
      "HOST",
      "MAGIS_MODEL_",
      "OPENAI_API_KEY",
    ]);
    expect(found("env.CI = 'true'; env[name] = value; settings.env; environment.X")).toEqual([]);
  });
});
