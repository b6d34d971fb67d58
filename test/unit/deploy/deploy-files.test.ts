import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";

const read = (file: string) => fs.readFileSync(new URL(`../../../deploy/${file}`, import.meta.url), "utf8");

/** `KEY=value` lines of a systemd unit or an environment file. */
function settings(text: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const [, key, value] of text.matchAll(/^([A-Za-z_]+)=(.*)$/gm)) found.set(key!, [...(found.get(key!) ?? []), value!]);
  return found;
}

interface Container {
  command: string[];
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
      expect(container.command).toEqual(["node", "bin/magis.js", "serve", "--role", role]);
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
  });
});
