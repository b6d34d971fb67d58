import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxWanted } from "../../../src/app/create-services.js";
import { readSettings } from "../../../src/app/settings/read-settings.js";
import { main } from "../../../src/cli.js";
import { chooseSandbox } from "../../../src/sandbox/choose-sandbox.js";
import { asOrdinaryUser } from "../../support/as-ordinary-user.js";
import { runInProcessGroup } from "../../support/run-in-process-group.js";

// The bot's own files where a systemd unit puts them (its key under /etc, its working directory under /opt), seen from
// a command in the sandbox a door builds from those settings: as root (the command is then nobody), and with the bot
// as an ordinary user, whose own files are all readable to it and whose uid the command keeps.
const SECRET = "sk-canary-of-the-bot-files-0123456789";
/** A uid that owns nothing else on this machine: the bot's user when it is not root. */
const BOT_UID = 4321;
const HELPER = path.join(import.meta.dirname, "run-door-sandbox.ts");
const MAGIS = path.join(import.meta.dirname, "../locate/run-magis.ts");
// Named by its file: the children run from the bot's working directory, where no node_modules is.
const TSX = import.meta.resolve("tsx");

let etc: string;
let opt: string;
let app: string;
let doorEnv: NodeJS.ProcessEnv;
/** Names of the bot's files, none of which a command may list. */
const NAMES = ["private-key.pem", ".env", "notes.txt", "magis.db", "job-1.jsonl", "delivery-1.json", "magis-job-1"];

beforeAll(() => {
  // Folders of their own under /etc and /opt, so that parallel runs never meet; removed in afterAll, failed or not.
  etc = fs.mkdtempSync("/etc/magis-test-");
  opt = fs.mkdtempSync("/opt/magis-test-");
  app = path.join(opt, "app");
  const files: [string, number][] = [
    [path.join(etc, "private-key.pem"), 0o600],
    [path.join(app, ".env"), 0o600],
    // What a checkout of the bot holds beside its .env, readable to all as git leaves it.
    [path.join(app, "notes.txt"), 0o644],
    [path.join(opt, "state/magis.db"), 0o600],
    // Traces are written with the default umask: readable to every user.
    [path.join(opt, "traces/job-1.jsonl"), 0o644],
    [path.join(opt, "spool/delivery-1.json"), 0o600],
    [path.join(opt, "work/magis-job-1/secret.txt"), 0o644],
  ];
  for (const [file, mode] of files) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${SECRET}\n`, { mode });
  }
  for (const top of [etc, opt]) {
    fs.chmodSync(top, 0o755);
    fs.chownSync(top, BOT_UID, BOT_UID);
    for (const entry of fs.readdirSync(top, { recursive: true, withFileTypes: true })) fs.chownSync(path.join(entry.parentPath, entry.name), BOT_UID, BOT_UID);
  }
  doorEnv = {
    PATH: process.env.PATH,
    HOME: "/nonexistent",
    PRIVATE_KEY_PATH: path.join(etc, "private-key.pem"),
    MAGIS_DB: path.join(opt, "state/magis.db"),
    MAGIS_TRACE_DIR: path.join(opt, "traces"),
    MAGIS_SPOOL_DIR: path.join(opt, "spool"),
    MAGIS_WORKDIR: path.join(opt, "work"),
  };
});
afterAll(() => {
  for (const top of [etc, opt]) if (top) fs.rmSync(top, { recursive: true, force: true });
});

/** Lists and reads everything under the two folders, then what the descriptor 300 it may have been given holds. */
const snoop = () => `find '${etc}' '${opt}' 2>&1; find '${etc}' '${opt}' -type f -exec cat {} + 2>&1; exit 0`;

/** Runs a Node script of the project as `uid` (root as it is), from the bot's working directory, after `prefix`. */
async function runAs(uid: number, script: string[], prefix: string[] = []) {
  const node = [process.execPath, "--import", TSX, ...script];
  const user = uid === 0 ? { argv: node, dispose: () => {} } : asOrdinaryUser(uid, node);
  try {
    const argv = [...prefix, ...user.argv];
    return await runInProcessGroup(argv[0]!, argv.slice(1), { cwd: app, env: doorEnv, timeoutMs: 60_000 });
  } finally {
    user.dispose();
  }
}

/** Runs the helper (the door's sandbox, one command) as `uid`, from the bot's working directory. */
function runHelper(uid: number, command: string, prefix: string[] = []) {
  return runAs(uid, [HELPER, command], prefix);
}

describe("the sandbox hides the bot's own files wherever its settings put them", () => {
  it("as root: the command (nobody) lists and reads none of the key, .env, database, traces, spool or work folder", async () => {
    const choice = chooseSandbox(sandboxWanted(readSettings(doorEnv, { door: "serve" }), { env: doorEnv, secrets: [], cwd: app }));
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), "magis-bot-files-copy-"));
    try {
      choice.sandbox!.prepare(copy);
      const result = await choice.sandbox!.run(snoop(), { dir: copy, env: {}, timeoutMs: 20_000 });
      expect(result.output).not.toContain(SECRET);
      for (const name of NAMES) expect(result.output).not.toContain(name);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it("as an ordinary user: the command keeps the bot's uid, and still lists and reads none of them", async () => {
    const { code, out } = await runHelper(BOT_UID, `id -u; ${snoop()}`);
    expect(code, out).toBe(0);
    expect(out.split("\n")[0]).toBe(String(BOT_UID));
    expect(out).not.toContain(SECRET);
    for (const name of NAMES) expect(out).not.toContain(name);
  });
});

describe("magis sandbox check probes the bot's real paths", () => {
  const lines = (out: string) =>
    [
      `contained  read the bot's private key (${etc}/private-key.pem)`,
      `contained  read the bot's private key's folder (${etc})`,
      `contained  read the bot's .env file (${app}/.env)`,
      `contained  read the bot's database (${opt}/state/magis.db)`,
      `contained  read the bot's database's folder (${opt}/state)`,
      `contained  read the bot's working directory (${app})`,
      `contained  read the bot's trace folder (${opt}/traces)`,
      `contained  read the bot's spool folder (${opt}/spool)`,
      `contained  read the bot's work folder (${opt}/work)`,
    ].filter((line) => !out.replace(/ {2,}/g, "  ").includes(line));

  it("as root: each of them contained", async () => {
    const out: string[] = [];
    const code = await main(["sandbox", "check"], { stdout: (t) => void out.push(t), stderr: (t) => void out.push(t), env: doorEnv, cwd: app });
    expect(lines(out.join("")), out.join("")).toEqual([]);
    expect(code, out.join("")).toBe(0);
  });

  it("as an ordinary user: each of them contained", async () => {
    const { code, out } = await runAs(BOT_UID, [MAGIS, "sandbox", "check"]);
    expect(lines(out), out).toEqual([]);
    expect(code, out).toBe(0);
  });
});

describe("what the bot's process holds does not reach the command", () => {
  // A descriptor without close-on-exec, as a shell or a service manager leaves one to the bot (Node's own have it).
  const descriptor = ["/bin/bash", "-c", 'exec 300<>"$0" && exec "$@"'];
  const useIt = `python3 -c 'import os; os.write(300, b"planted"); os.lseek(300, 0, 0); print(os.read(300, 200))' 2>&1; readlink /proc/self/fd/300; exit 0`;

  for (const uid of [0, BOT_UID]) {
    it(`as ${uid === 0 ? "root" : "an ordinary user"}: descriptor 300 of a 0600 file of the bot's is neither read nor written`, async () => {
      const held = fs.mkdtempSync(path.join(os.tmpdir(), "magis-held-fd-"));
      try {
        const file = path.join(held, "held.pem");
        fs.writeFileSync(file, SECRET, { mode: 0o600 });
        fs.chownSync(file, uid, uid);
        const { code, out } = await runHelper(uid, useIt, [...descriptor, file]);
        expect(code, out).toBe(0);
        // In the command, descriptor 300 is /dev/null: the write fails, the read gives nothing of the file.
        expect(out).toContain("/dev/null");
        expect(out).not.toContain(SECRET);
        expect(out).not.toContain(file);
        expect(fs.readFileSync(file, "utf8")).toBe(SECRET);
      } finally {
        fs.rmSync(held, { recursive: true, force: true });
      }
    });
  }

  for (const uid of [0, BOT_UID]) {
    it(`as ${uid === 0 ? "root" : "an ordinary user"}: /dev/shm is a private 1777 tmpfs, so multiprocessing.Lock works`, async () => {
      const lock = `stat -c '%a' /dev/shm; python3 -c 'import multiprocessing; lock = multiprocessing.Lock(); lock.acquire(); lock.release(); print("locked")' 2>&1`;
      const { code, out } = await runHelper(uid, lock);
      expect(code, out).toBe(0);
      expect(out.split("\n")[0]).toBe("1777");
      expect(out).toContain("locked");
    });
  }
});
