import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { readSettings } from "../../../src/app/settings/read-settings.js";

const readRoot = (file: string) => fs.readFileSync(new URL(`../../../${file}`, import.meta.url), "utf8");
const read = (file: string) => readRoot(`deploy/${file}`);
const { version } = JSON.parse(readRoot("package.json")) as { version: string };

/** The Dockerfile's runtime stage (after the last FROM): its ENV pairs, its USER, its EXPOSEd ports, its entry point and command. */
function runtimeStage(text: string) {
  const stage = text.slice(text.lastIndexOf("\nFROM "));
  const instruction = (name: string) => [...stage.replace(/\\\n/g, " ").matchAll(new RegExp(`^${name} (.*)$`, "gm"))].map((m) => m[1]!.trim());
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
    expect([...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1])).toEqual(["${NODE_IMAGE}", "${NODE_IMAGE}"]);
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
