import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { readSettings } from "../../../src/app/settings/read-settings.js";

const readRoot = (file: string) => fs.readFileSync(new URL(`../../../${file}`, import.meta.url), "utf8");
const read = (file: string) => readRoot(`deploy/${file}`);
const { version } = JSON.parse(readRoot("package.json")) as { version: string };

/** The Dockerfile's stages by name (`FROM … AS name`; the last, unnamed, as ""), each its text after its FROM line. */
function stages(text: string): Map<string, string> {
  const parts = text.split(/^(?=FROM )/m).slice(1);
  return new Map(parts.map((part) => [/^FROM \S+(?: AS (\S+))?/.exec(part)![1] ?? "", part.slice(part.indexOf("\n") + 1)]));
}

/** The instructions `name` of a stage, their continuation lines joined. */
const instructions = (stage: string, name: string) => [...stage.replace(/\\\n/g, " ").matchAll(new RegExp(`^${name} (.*)$`, "gm"))].map((m) => m[1]!.trim());

/** The packages a stage's RUN lines install with apt-get. */
const aptPackages = (stage: string) =>
  instructions(stage, "RUN").flatMap((line) =>
    [...line.matchAll(/apt-get install -y --no-install-recommends\s+((?:[\w.+-]+\s*)+)/g)].flatMap((m) => m[1]!.trim().split(/\s+/)),
  );

/** The Dockerfile's App stage (`app`): its ENV pairs, its USER, its EXPOSEd ports, its entry point and command. */
function runtimeStage(text: string) {
  const stage = stages(text).get("app")!;
  const instruction = (name: string) => instructions(stage, name);
  const env = Object.fromEntries(instruction("ENV").flatMap((line) => [...line.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])));
  return {
    env,
    user: instruction("USER")[0],
    expose: instruction("EXPOSE")
      .flatMap((line) => line.split(/\s+/))
      .map(Number),
    entrypoint: JSON.parse(instruction("ENTRYPOINT")[0]!) as string[],
    cmd: JSON.parse(instruction("CMD")[0]!) as string[],
  };
}

/** `KEY=value` lines of a systemd unit or an environment file. */
function settings(text: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const [, key, value] of text.matchAll(/^([A-Za-z_]+)=(.*)$/gm)) found.set(key!, [...(found.get(key!) ?? []), value!]);
  return found;
}

interface Container {
  image: string;
  args: string[];
  ports: { name: string; containerPort: number }[];
  env: { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }[];
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
}

describe("the deployment sketches in deploy/", () => {
  const manifest = parseAllDocuments(read("kubernetes/magis.yaml")).map((doc) => doc.toJS());
  const config = manifest.find((doc) => doc.kind === "ConfigMap").data as Record<string, string>;
  const deployment = (name: string) => manifest.find((doc) => doc.kind === "Deployment" && doc.metadata.name === name);
  const grace = Number(config.MAGIS_SHUTDOWN_GRACE_SECONDS);

  it("Kubernetes: 2 web and 3 worker pods, probed on /healthz and /readyz, scraped on their PORT, killed only after the grace period", () => {
    for (const [name, role, replicas] of [
      ["magis-web", "web", 2],
      ["magis-worker", "worker", 3],
    ] as const) {
      const spec = deployment(name).spec;
      const pod = spec.template;
      const container = pod.spec.containers[0] as Container;
      expect(spec.replicas).toBe(replicas);
      expect(container.image).toBe(`ghcr.io/your-org/magis:${version}`);
      expect(container.args).toEqual(["serve", "--role", role]);
      expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001 });
      const port = container.env.find((variable) => variable.name === "PORT")!.value;
      expect(pod.metadata.annotations).toEqual({ "prometheus.io/scrape": "true", "prometheus.io/port": port, "prometheus.io/path": "/metrics" });
      const portName = container.ports.find((p) => String(p.containerPort) === port)!.name;
      expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: portName });
      expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: portName });
      for (const variable of container.env.filter((v) => v.valueFrom)) expect(variable.valueFrom!.secretKeyRef).toEqual({ name: "magis", key: variable.name });
    }
    expect(deployment("magis-worker").spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(grace);
    const secretsOf = (name: string) => (deployment(name).spec.template.spec.containers[0] as Container).env.filter((v) => v.valueFrom).map((v) => v.name);
    expect(secretsOf("magis-web")).toContain("WEBHOOK_SECRET");
    expect(secretsOf("magis-web")).not.toContain("OPENAI_API_KEY");
    expect(secretsOf("magis-worker")).toContain("OPENAI_API_KEY");
    expect(secretsOf("magis-worker")).not.toContain("WEBHOOK_SECRET");
    expect(manifest.some((doc) => doc.kind === "Secret")).toBe(false);
    const service = manifest.find((doc) => doc.kind === "Service");
    expect(service.spec.selector).toEqual(deployment("magis-web").spec.selector.matchLabels);
  });

  it("systemd: each unit runs its role, sets its own PORT, and a worker is killed only after the grace period", () => {
    const environment = settings(read("systemd/magis.env.example"));
    // EnvironmentFile= overrides Environment=: a PORT in the shared file would give every unit the same port.
    expect(environment.has("PORT")).toBe(false);
    const web = settings(read("systemd/magis-web.service"));
    const worker = settings(read("systemd/magis-worker@.service"));
    expect(web.get("ExecStart")).toEqual(["/usr/bin/node bin/magis.js serve --role web"]);
    expect(worker.get("ExecStart")).toEqual(["/usr/bin/node bin/magis.js serve --role worker"]);
    expect(worker.get("Environment")).toEqual(["PORT=%i"]);
    expect(Number(worker.get("TimeoutStopSec")![0])).toBeGreaterThan(Number(environment.get("MAGIS_SHUTDOWN_GRACE_SECONDS")![0]));
    expect(Number(environment.get("MAGIS_SHUTDOWN_GRACE_SECONDS")![0])).toBe(grace);
    for (const unit of [web, worker]) expect(unit.get("KillMode")).toEqual(["mixed"]);
    // The web role's spool outlives a restart in the state directory systemd makes for the unit.
    expect(web.get("StateDirectory")).toEqual(["magis"]);
    expect(environment.get("MAGIS_SPOOL_DIR")).toEqual(["/var/lib/magis/spool"]);
  });

  it("the image: built from node:20-bookworm-slim, runs `magis serve` as the user the Kubernetes pods name, on the port it EXPOSEs", () => {
    const dockerfile = readRoot("Dockerfile");
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
    // build, the App, `universal` on the App, and the App again last: a plain `docker build` builds the App alone.
    expect([...dockerfile.matchAll(/^FROM (\S+)(?: AS (\S+))?$/gm)].map((m) => [m[1], m[2]])).toEqual([
      ["${NODE_IMAGE}", "build"],
      ["${NODE_IMAGE}", "app"],
      ["app", "universal"],
      ["app", undefined],
    ]);
    expect(
      stages(dockerfile)
        .get("")!
        .replace(/^#.*\n/gm, "")
        .trim(),
    ).toBe("");
    const image = runtimeStage(dockerfile);
    expect(image.user).toBe("10001:10001");
    expect([...image.entrypoint, ...image.cmd]).toEqual(["node", "/app/bin/magis.js", "serve"]);
    // Its settings are ones `magis serve` accepts, and its one port is the one serve listens on.
    const settings = readSettings(image.env, { door: "serve" });
    expect(settings.server).toMatchObject({ nodeEnv: "production", host: "0.0.0.0" });
    expect(image.expose).toEqual([settings.server.port]);
    expect(settings.git.workDir).toBe("/work");
    expect(settings.store.sqliteFile).toBe("/data/magis.db");
    expect(readSettings({}, { door: "serve" }).server.port).toBe(settings.server.port);
    // The context holds no secret: .dockerignore admits only what the build copies.
    expect(
      readRoot(".dockerignore")
        .split("\n")
        .filter((line) => line && !line.startsWith("#"))[0],
    ).toBe("*");
  });

  it("the image: the App carries bubblewrap and util-linux; `universal` adds Debian's toolchains and runs as 10001 again", () => {
    const all = stages(readRoot("Dockerfile"));
    expect(aptPackages(all.get("app")!)).toEqual(["bubblewrap", "util-linux"]);
    const universal = all.get("universal")!;
    expect(aptPackages(universal)).toEqual(
      expect.arrayContaining(["python3", "python3-venv", "python3-pip", "python3-dev", "build-essential", "golang-go", "default-jdk-headless", "maven"]),
    );
    expect(instructions(universal, "USER")).toEqual(["root", "10001:10001"]);
  });

  it("the seccomp profile: refuses what it does not list, allows bubblewrap's namespace calls, refuses the machine-wide ones", () => {
    const profile = JSON.parse(read("docker/seccomp-bubblewrap.json")) as {
      defaultAction: string;
      defaultErrnoRet: number;
      syscalls: { names: string[]; action: string; args?: unknown[] }[];
    };
    // ENOSYS for a call newer than the list: programs take their older way, as for a kernel without it.
    expect(profile).toMatchObject({ defaultAction: "SCMP_ACT_ERRNO", defaultErrnoRet: 38 });
    const allowed = new Set(profile.syscalls.filter((rule) => rule.action === "SCMP_ACT_ALLOW").flatMap((rule) => rule.names));
    const refused = profile.syscalls.filter((rule) => rule.action === "SCMP_ACT_ERRNO").flatMap((rule) => rule.names);
    expect(profile.syscalls.every((rule) => rule.args === undefined)).toBe(true);
    for (const call of ["unshare", "clone", "clone3", "mount", "umount2", "pivot_root", "prlimit64", "execve", "openat", "io_getevents"])
      expect(allowed, call).toContain(call);
    const machineWide = ["kexec_load", "init_module", "finit_module", "delete_module", "reboot", "swapon", "settimeofday", "clock_settime", "iopl", "acct"];
    const surface = ["bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "io_uring_setup", "open_by_handle_at", "setns", "fsopen", "move_mount"];
    expect(refused).toEqual(expect.arrayContaining([...machineWide, ...surface]));
    expect(refused.filter((call) => allowed.has(call))).toEqual([]);
    expect(allowed.size).toBeGreaterThan(300);
  });

  it("the workers' privileges: Kubernetes and compose give bubblewrap what it needs and nothing else; web keeps the defaults", () => {
    const manifest = parseAllDocuments(read("kubernetes/magis.yaml")).map((doc) => doc.toJS());
    const pod = (name: string) => manifest.find((doc) => doc.kind === "Deployment" && doc.metadata.name === name).spec.template.spec;
    const worker = pod("magis-worker");
    expect(worker.hostUsers).toBe(false);
    expect(worker.containers[0].securityContext).toEqual({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "Localhost", localhostProfile: "magis/seccomp-bubblewrap.json" },
      procMount: "Unmasked",
      appArmorProfile: { type: "Unconfined" },
    });
    expect(pod("magis-web").hostUsers).toBeUndefined();
    expect(pod("magis-web").containers[0].securityContext).toEqual({ allowPrivilegeEscalation: false });
    expect(JSON.stringify(manifest)).not.toMatch(/privileged|SYS_ADMIN/);
    const compose = parse(readRoot("compose.yaml"), { merge: true });
    expect(compose.services.worker.cap_drop).toEqual(["ALL"]);
    expect(compose.services.worker.security_opt).toEqual([
      "no-new-privileges:true",
      "seccomp=deploy/docker/seccomp-bubblewrap.json",
      "systempaths=unconfined",
      "apparmor=unconfined",
    ]);
    expect(fs.existsSync(new URL("../../../deploy/docker/seccomp-bubblewrap.json", import.meta.url))).toBe(true);
    expect(compose.services.web.security_opt).toBeUndefined();
    expect(compose.services.web.privileged).toBeUndefined();
  });

  it("compose: PostgreSQL, then a web and a worker from the image, on one DATABASE_URL, each checked on /readyz", () => {
    const compose = parse(readRoot("compose.yaml"), { merge: true });
    const { postgres, web, worker } = compose.services;
    expect(Object.keys(compose.services).sort()).toEqual(["postgres", "web", "worker"]);
    expect(postgres.image).toMatch(/^postgres:\d+/);
    expect(postgres.healthcheck.test).toContain("pg_isready");
    for (const [service, role, port] of [
      [web, "web", "3000"],
      [worker, "worker", "9100"],
    ] as const) {
      expect(service.build).toBe(".");
      expect(service.image).toBe(`magis:${version}`);
      expect(service.command).toEqual(["serve", "--role", role]);
      expect(service.env_file).toBe(".env");
      expect(service.init).toBe(true);
      expect(service.depends_on).toEqual({ postgres: { condition: "service_healthy" } });
      expect(service.environment.PORT).toBe(port);
      expect(service.healthcheck.test.join(" ")).toContain("/readyz");
      expect(service.environment.DATABASE_URL).toMatch(/^postgres:\/\/magis:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/magis$/);
    }
    expect(worker.environment.DATABASE_URL).toBe(web.environment.DATABASE_URL);
    expect(web.ports).toEqual(["3000:3000"]);
    // Kept through a restart: the web role's spool (under MAGIS_WORKDIR) and the worker's traces (beside MAGIS_DB).
    expect(web.volumes).toEqual(["web-spool:/work"]);
    expect(worker.volumes).toEqual(["magis-data:/data"]);
    expect(Object.keys(compose.volumes).sort()).toEqual(["magis-data", "postgres-data", "web-spool"]);
    expect(worker.ports).toBeUndefined();
    // Each role gets only its own secrets (blank is unset), as in the Kubernetes pods.
    expect(web.environment.OPENAI_API_KEY).toBe("");
    expect(worker.environment.WEBHOOK_SECRET).toBe("");
    const seconds = (text: string) => Number(/^(\d+)s$/.exec(text)![1]);
    expect(seconds(worker.stop_grace_period)).toBeGreaterThan(grace);
    expect(readRoot(".gitignore").split("\n")).toContain(".env");
  });
});
