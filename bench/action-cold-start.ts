// The Action's cold start: from a fresh copy of the action's committed files (action.yml and dist-action/, no
// node_modules, as the runner unpacks the action's tarball) to the first line it logs, started as the runner starts a
// node24 action (`node dist-action/index.js`, the inputs as INPUT_* variables).
//
//   npm run bench:action-start -- [--runs 10] [--node PATH]
//
// Three starts a run, each from a copy of its own: Node alone (`node -e`), for scale, and
//  - "bare": no runner variables, so the first line is the message naming them: loading the bundle and the settings;
//  - "no trigger": a comment that is no /magis command, so the first line is the step summary, written after the
//    store is opened (a new SQLite file, its migrations), the event read and the trigger decided; GitHub is not asked.
// Also printed: the size of what the runner downloads (the repository's tarball at HEAD) and of the bundle.
// --node is the Node that runs it (default: this one; the runner's is Node 24). On a Node without node:sqlite (20)
// the "no trigger" start gets the repository's better-sqlite3 through NODE_PATH, which the runner's Node 24 does not
// need.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { commentPayload } from "../test/e2e/payloads.js";
import { copyCommittedAction, inputVariables, readActionYml } from "../test/support/action-copy.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "10" }, node: { type: "string", default: process.execPath } } });
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const node = values.node;
const [version, hasSqlite] = execFileSync(node, ["-p", 'process.version + " " + !!process.getBuiltinModule?.("node:sqlite")'], { encoding: "utf8" })
  .trim()
  .split(" ");

// GNU time, where installed, gives the CPU time each start took: the figure a loaded machine does not stretch.
const TIME = fs.existsSync("/usr/bin/time") ? "/usr/bin/time" : null;

interface Start {
  firstLineMs: number;
  exitMs: number;
  /** User and system CPU time, or NaN without GNU time. */
  cpuMs: number;
  code: number | null;
  out: string;
}

/** Runs `node args` in `dir` with `env`: milliseconds to its first byte on stdout or stderr, to its exit, and of CPU. */
function start(dir: string, args: string[], env: NodeJS.ProcessEnv): Promise<Start> {
  return new Promise((resolve, reject) => {
    const cpuFile = path.join(dir, "..", `${path.basename(dir)}.cpu`);
    const [command, argv] = TIME ? [TIME, ["-f", "%U %S", "-o", cpuFile, node, ...args]] : [node, args];
    const began = performance.now();
    let firstLineMs = -1;
    let out = "";
    const child = spawn(command, argv, { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
    const heard = (chunk: Buffer) => {
      if (firstLineMs < 0) firstLineMs = performance.now() - began;
      out += chunk.toString();
    };
    child.stdout.on("data", heard);
    child.stderr.on("data", heard);
    child.on("error", reject);
    child.on("close", (code) => {
      const exitMs = performance.now() - began;
      const cpuMs = TIME ? cpuMsOf(cpuFile) : NaN;
      resolve({ firstLineMs, exitMs, cpuMs, code, out });
    });
  });
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-bench-action-start-"));
try {
  const tarball = gzipSync(execFileSync("git", ["archive", "HEAD"], { cwd: ROOT, maxBuffer: 1 << 30 })).length;
  const folder = path.join(ROOT, path.dirname(readActionYml().runs.main!));
  const bundle = fs.statSync(path.join(ROOT, readActionYml().runs.main!)).size;
  const files = fs.readdirSync(folder, { recursive: true, encoding: "utf8" }).map((name) => fs.statSync(path.join(folder, name)));
  const folderBytes = files.filter((stat) => stat.isFile()).reduce((sum, stat) => sum + stat.size, 0);
  console.log(
    `download: the repository at HEAD, ${mb(tarball)} gzipped; ${path.basename(folder)}/ ${mb(folderBytes)} (index.js ${mb(bundle)}); Node ${version}`,
  );

  const eventPath = path.join(root, "event.json");
  fs.writeFileSync(eventPath, JSON.stringify(commentPayload({ body: "Thanks, looks good", installationId: null })));
  const base = { PATH: process.env.PATH, HOME: process.env.HOME };
  const main = readActionYml().runs.main!;
  // Node alone, for scale: the process starting and printing one line.
  const kinds: Record<string, { args: string[]; env: NodeJS.ProcessEnv; exit: number }> = {
    "node alone": { args: ["-e", "console.log(1)"], env: base, exit: 0 },
    bare: { args: [main], env: base, exit: 2 },
    "no trigger": {
      args: [main],
      exit: 0,
      env: {
        ...base,
        GITHUB_EVENT_NAME: "issue_comment",
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_REPOSITORY: "Codertocat/Hello-World",
        // Never asked: a comment that is no command is decided without GitHub.
        GITHUB_API_URL: "http://127.0.0.1:9",
        GITHUB_STEP_SUMMARY: path.join(root, "summary.md"),
        RUNNER_TEMP: root,
        ...inputVariables(readActionYml(), { github_token: "ghs_benchColdStart0123456789abcdef" }, (text) => text.replace(/\$\{\{[^}]*\}\}/g, "")),
        ...(hasSqlite === "true" ? {} : { NODE_PATH: path.join(ROOT, "node_modules") }),
      },
    },
  };
  const seen: Record<string, { copy: number[]; first: number[]; exit: number[]; cpu: number[] }> = {};
  for (let run = 1; run <= Number(values.runs); run++) {
    for (const [kind, { args, env, exit }] of Object.entries(kinds)) {
      const dir = path.join(root, `action-${run}-${kind.replace(" ", "-")}`);
      const copyStart = performance.now();
      fs.mkdirSync(dir);
      copyCommittedAction(dir);
      const copyMs = performance.now() - copyStart;
      const started = await start(dir, args, env);
      if (started.code !== exit) throw new Error(`the ${kind} start exited ${started.code}, not ${exit}:\n${started.out}`);
      const times = (seen[kind] ??= { copy: [], first: [], exit: [], cpu: [] });
      times.cpu.push(started.cpuMs);
      times.copy.push(copyMs);
      times.first.push(started.firstLineMs);
      times.exit.push(started.exitMs);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  for (const [kind, times] of Object.entries(seen)) {
    console.log(
      `${kind}: first line median ${ms(median(times.first))} (${ms(Math.min(...times.first))}–${ms(Math.max(...times.first))}), exit ${ms(median(times.exit))}, CPU ${ms(median(times.cpu))}; copying the files ${ms(median(times.copy))}; ${times.first.length} runs`,
    );
  }
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}

/** GNU time's file: its last line is "user system" in seconds; a line before it says when the command exited non-zero. */
function cpuMsOf(file: string): number {
  const [user, system] = fs.readFileSync(file, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number);
  return (user! + system!) * 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(2)} MB`;
}
