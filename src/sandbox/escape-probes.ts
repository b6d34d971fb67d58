import dgram from "node:dgram";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { CommandRun } from "./run-command.js";
import type { BotPath, Sandbox } from "./sandbox.js";
import { startSetupProxy } from "./setup-proxy.js";

/** One attempt to get out, and whether the sandbox held. */
export interface ProbeResult {
  /** What the command tried. */
  tried: string;
  /** `contained`: it failed; `escaped`: it worked; `untested`: the probe could not run (the reason is in `note`). */
  verdict: "contained" | "escaped" | "untested";
  note: string;
}

/** The variables a sandboxed command may see: the sandbox's own, and what the shell sets. */
const ALLOWED_NAMES = new Set(["PATH", "HOME", "LANG", "TMPDIR", "CI", "PWD", "SHLVL", "_", "OLDPWD"]);

/** What the escape suite found, and the bot's paths it could not try because they are not on this machine. */
export interface ProbeReport {
  results: ProbeResult[];
  absent: BotPath[];
}

/**
 * A short escape suite for `magis sandbox check`: each probe is a hostile command run through the sandbox, and the
 * host checks afterwards whether it got what it tried for; among them, a read of each of `botPaths`, the bot's own
 * files and folders as its settings place them. It uses a folder of its own in the temp directory and a listener on
 * 127.0.0.1, both gone when it returns.
 */
export async function runEscapeProbes(sandbox: Sandbox, botPaths: readonly BotPath[] = []): Promise<ProbeReport> {
  const host = fs.mkdtempSync(path.join(os.tmpdir(), "magis-sandbox-probe-"));
  const listener = net.createServer((socket) => {
    connections++;
    socket.end();
  });
  let connections = 0;
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const port = (listener.address() as net.AddressInfo).port;
  try {
    const copy = path.join(host, "copy");
    fs.mkdirSync(copy);
    const canary = `magis-probe-${process.pid}-${Date.now()}`;
    const secretFile = path.join(host, "private-key.pem");
    fs.writeFileSync(secretFile, canary);
    sandbox.prepare(copy);
    const run = (command: string) => sandbox.run(command, { dir: copy, env: {}, timeoutMs: 20_000 });
    const results: ProbeResult[] = [];
    const { probed, absent } = await probeBotPaths(run, botPaths);
    results.push(...probed);

    const env = await run("env");
    const extra = env.output
      .split("\n")
      .map((line) => line.split("=")[0]!)
      .filter((name) => name && !ALLOWED_NAMES.has(name));
    results.push({
      tried: "read the bot's environment",
      verdict: extra.length === 0 ? "contained" : "escaped",
      note: extra.length === 0 ? "only PATH, HOME, LANG, TMPDIR and CI" : `${extra.length} more variables, e.g. ${extra.slice(0, 3).join(", ")}`,
    });

    const proc = await run(`cat /proc/${process.pid}/cmdline /proc/${process.pid}/environ`);
    // In a PID namespace of its own the bot's number may still name a process (in a container the bot is pid 1 or 2,
    // and so is a process of the sandbox's): only the bot's own command line coming back is an escape.
    const ownCommandLine = fs.readFileSync(`/proc/${process.pid}/cmdline`, "utf8");
    const sawBot = proc.outcome === "passed" && proc.output.includes(ownCommandLine);
    results.push({
      tried: "read the bot's process through /proc",
      verdict: sawBot ? "escaped" : "contained",
      note: sawBot ? "its command line and environment were readable" : "not visible: a PID namespace of its own",
    });

    const file = await run(`cat '${secretFile}'`);
    results.push({
      tried: "read a file of the host (a private key beside the checkout)",
      verdict: file.output.includes(canary) ? "escaped" : "contained",
      note: file.output.includes(canary) ? "it was read" : "not mounted",
    });

    // Listed by another process, so that the shell holds nothing of its own (a pipe) while they are looked at.
    const held = await run("ls -l /proc/$$/fd");
    const open = [...held.output.matchAll(/ (\d+) -> (.*)$/gm)].filter(([, fd, target]) => Number(fd) > 2 && target !== "/dev/null").map(([, fd]) => fd);
    results.push({
      tried: "use a descriptor the bot holds open",
      verdict: open.length > 0 ? "escaped" : "contained",
      note: open.length > 0 ? `descriptors ${open.join(", ")} are open to the host's files` : "none open above 2 but to /dev/null",
    });

    const planted = path.join(host, "planted");
    await run(`echo x > '${planted}'; echo x > '${os.homedir()}/magis-probe-${process.pid}'`);
    const wrote = fs.existsSync(planted) || fs.existsSync(path.join(os.homedir(), `magis-probe-${process.pid}`));
    fs.rmSync(path.join(os.homedir(), `magis-probe-${process.pid}`), { force: true });
    results.push({
      tried: "write outside its copy (the host's temp folder, home)",
      verdict: wrote ? "escaped" : "contained",
      note: wrote ? "it wrote there" : "read-only or absent",
    });

    const connect = await run(
      `command -v node >/dev/null || { echo no-node; exit 0; }; node -e 'require("node:net").connect(${port}, "127.0.0.1").on("error", () => {}).on("connect", function () { this.end(); })'`,
    );
    results.push(
      connect.output.includes("no-node")
        ? { tried: "connect to 127.0.0.1", verdict: "untested", note: "no node inside the sandbox to try with" }
        : { tried: "connect to 127.0.0.1", verdict: connections > 0 ? "escaped" : "contained", note: connections > 0 ? "it connected" : "no network" },
    );

    if (sandbox.setupAllowHosts.length > 0) results.push(...(await probeSetupNetwork(sandbox, copy, port, () => connections)));

    const marker = `${process.pid}.${Date.now() % 100_000}`;
    await run(`setsid sleep ${marker} > /dev/null 2>&1 < /dev/null & sleep 0.2; exit 0`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const left = processesWith(marker);
    for (const pid of left) process.kill(pid, "SIGKILL");
    results.push({
      tried: "leave a daemon behind (setsid)",
      verdict: left.length > 0 ? "escaped" : "contained",
      note: left.length > 0 ? "it outlived the command (killed now)" : "it died with the sandbox",
    });

    const limits = await run("grep -E '^Max (processes|file size|data size)' /proc/self/limits");
    const unlimited = limits.output.split("\n").filter((line) => /unlimited\s+unlimited/.test(line));
    results.push({
      tried: "use unbounded processes, file size, memory",
      verdict: unlimited.length > 0 ? "escaped" : "contained",
      note: unlimited.length > 0 ? `unlimited: ${unlimited.map((line) => line.replace(/\s{2,}.*/, "")).join(", ")}` : "rlimits set",
    });
    return { results, absent };
  } finally {
    await new Promise((resolve) => listener.close(resolve));
    fs.rmSync(host, { recursive: true, force: true });
  }
}

/**
 * A setup given the network, through a proxy of its own that allows nothing: it tries the host's listener on 127.0.0.1
 * around the proxy, a UDP datagram to the host, a DNS lookup and one of the host's abstract unix sockets.
 */
async function probeSetupNetwork(sandbox: Sandbox, copy: string, port: number, tcp: () => number): Promise<ProbeResult[]> {
  const proxy = await startSetupProxy({ allow: [] });
  const udp = dgram.createSocket("udp4");
  let datagrams = 0;
  udp.on("message", () => datagrams++);
  const name = `magis-probe-abstract-${process.pid}-${Date.now()}`;
  let abstract = 0;
  const unix = net.createServer((socket) => {
    abstract++;
    socket.end();
  });
  try {
    await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
    await new Promise<void>((resolve) => unix.listen(`\0${name}`, resolve));
    const before = tcp();
    const script = [
      `const net = require("node:net");`,
      `net.connect(${port}, "127.0.0.1").on("error", () => {}).on("connect", function () { this.end(); });`,
      `net.connect("\\0${name}").on("error", () => {}).on("connect", function () { this.end(); });`,
      `const udp = require("node:dgram").createSocket("udp4"); udp.send("x", ${(udp.address() as net.AddressInfo).port}, "127.0.0.1", () => udp.close());`,
      `require("node:dns").lookup("registry.npmjs.org", (e) => console.log(e ? "dns-failed" : "dns-resolved"));`,
    ].join(" ");
    const run = await sandbox.run(`command -v node >/dev/null || { echo no-node; exit 0; }; node -e '${script}'; sleep 0.3`, {
      dir: copy,
      env: {},
      timeoutMs: 20_000,
      network: proxy.network,
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const tried = (what: string) => `a setup given the network: ${what} around the proxy`;
    if (run.output.includes("no-node"))
      return [{ tried: tried("reach the host's network"), verdict: "untested", note: "no node inside the sandbox to try with" }];
    const verdict = (escaped: boolean, note: string): Pick<ProbeResult, "verdict" | "note"> =>
      escaped ? { verdict: "escaped", note } : { verdict: "contained", note: "a network namespace of its own" };
    return [
      { tried: tried("connect to the host's 127.0.0.1"), ...verdict(tcp() > before, "it connected") },
      { tried: tried("send UDP to the host's 127.0.0.1"), ...verdict(datagrams > 0, "the datagram arrived") },
      { tried: tried("resolve a name (DNS)"), ...verdict(run.output.includes("dns-resolved"), "the name resolved") },
      { tried: tried("connect to the host's abstract unix socket"), ...verdict(abstract > 0, "it connected") },
    ];
  } finally {
    await new Promise((resolve) => unix.close(resolve));
    udp.close();
    await proxy.close();
  }
}

/**
 * One probe for each of the bot's paths that is on this machine, all in one command: it escaped when the command can
 * read the very file or folder (the same device and inode as the host's); hidden (another one in its place), not
 * there, or there but closed to the command's user, it was contained.
 */
async function probeBotPaths(
  run: (command: string) => Promise<CommandRun>,
  botPaths: readonly BotPath[],
): Promise<{ probed: ProbeResult[]; absent: BotPath[] }> {
  const absent: BotPath[] = [];
  const present: { bot: BotPath; id: string; folder: boolean }[] = [];
  for (const bot of botPaths) {
    if (present.some((seen) => seen.bot.path === bot.path)) continue;
    try {
      const stat = fs.statSync(bot.path);
      present.push({ bot, id: `${stat.dev}:${stat.ino}`, folder: stat.isDirectory() });
    } catch {
      absent.push(bot);
    }
  }
  if (present.length === 0) return { probed: [], absent };
  const script = present.map(({ bot }, i) => {
    const at = quote(bot.path);
    const read = `{ if [ -d ${at} ]; then ls -A ${at}; else head -c 1 ${at}; fi; } >/dev/null 2>&1 && echo read || echo closed`;
    return `if [ -e ${at} ]; then echo "${i} $(stat -L -c %d:%i ${at} 2>/dev/null) $(${read})"; else echo "${i} absent"; fi`;
  });
  const { output } = await run(`${script.join("\n")}\nexit 0`);
  const seen = new Map(output.split("\n").flatMap((line) => (/^\d+ /.test(line) ? [[Number(line.split(" ")[0]), line.split(" ").slice(1)] as const] : [])));
  const probed = present.map(({ bot, id, folder }, i): ProbeResult => {
    const tried = `read ${bot.what} (${bot.path})`;
    const [inside, access] = seen.get(i) ?? [];
    if (inside === undefined) return { tried, verdict: "untested", note: `the probe printed nothing: ${output.trim().split("\n").at(-1) ?? ""}` };
    if (inside === "absent") return { tried, verdict: "contained", note: "not there: not mounted" };
    if (!inside) return { tried, verdict: "untested", note: "there, but stat could not tell which file it is" };
    if (inside !== id) return { tried, verdict: "contained", note: folder ? "hidden: another folder in its place" : "hidden: /dev/null in its place" };
    if (access === "read") return { tried, verdict: "escaped", note: "it was read" };
    return { tried, verdict: "contained", note: "mounted, but closed to the command's user" };
  });
  return { probed, absent };
}

/** A path as one word of a shell command. */
function quote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/** Pids of this machine's processes whose command line holds `marker` (a probe's daemon, a test's). */
export function processesWith(marker: string): number[] {
  return fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}
