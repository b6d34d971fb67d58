import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { openEnvironmentShelf } from "../../../src/environment/index.js";
import type { RunningServer } from "../../../src/server/listen-on.js";
import { createMetrics } from "../../../src/server/metrics.js";
import { startOpsServer } from "../../../src/server/start-ops-server.js";
import { parsePrometheusText } from "../../support/parse-prometheus-text.js";

let work: string;
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

/** A set-up copy of `bytes` bytes and an empty home. */
function setUp(name: string, bytes: number) {
  const repoDir = path.join(work, name, "repo");
  const homeDir = path.join(work, name, "home");
  fs.mkdirSync(repoDir, { recursive: true });
  fs.mkdirSync(homeDir);
  fs.writeFileSync(path.join(repoDir, "node_modules.bin"), Buffer.alloc(bytes));
  return { repoDir, homeDir };
}

describe("the kept environments on /metrics", () => {
  it("counts hits, misses, builds and their seconds, evictions, and the bytes and environments kept", async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-shelf-metrics-"));
    let clock = 0;
    const shelf = openEnvironmentShelf({ folder: path.join(work, "environments"), maxBytes: 1500, now: () => new Date((clock += 1000)) });
    const metrics = createMetrics({ role: "worker", environments: () => shelf.stats() });
    server = await startOpsServer({ host: "127.0.0.1", port: 0, metrics, ready: async () => undefined, log: pino({ level: "silent" }) });
    const scrape = async () => parsePrometheusText(await (await fetch(`http://127.0.0.1:${server!.port}/metrics`)).text());

    const empty = await scrape();
    expect(empty.value("magis_environment_lookups_total", { result: "hit" })).toBe(0);
    expect(empty.value("magis_environments_kept")).toBe(0);

    const scope = { repo: "octo/demo", installationId: 1 };
    const record = { keyParts: {}, source: ".github/magis.yml setup_command" as const, builtAt: new Date(0).toISOString(), checkoutFiles: [] };
    await shelf.keep({ scope, key: "1".repeat(64), ...setUp("one", 1000), record: { ...record, buildSeconds: 40 } });
    shelf.release(shelf.find(scope, "1".repeat(64))!);
    shelf.find(scope, "2".repeat(64));
    await shelf.keep({ scope, key: "2".repeat(64), ...setUp("two", 800), record: { ...record, buildSeconds: 25.5 } });
    const text = await scrape();
    expect(text.value("magis_environment_lookups_total", { result: "hit", role: "worker" })).toBe(1);
    expect(text.value("magis_environment_lookups_total", { result: "miss" })).toBe(1);
    expect(text.value("magis_environment_builds_total")).toBe(2);
    expect(text.value("magis_environment_build_seconds_total")).toBe(65.5);
    expect(text.value("magis_environment_evictions_total")).toBe(1);
    expect(text.value("magis_environment_bytes")).toBe(800);
    expect(text.value("magis_environments_kept")).toBe(1);
    expect(text.type.get("magis_environment_bytes")).toBe("gauge");
    expect(text.type.get("magis_environment_evictions_total")).toBe("counter");
    // Counts read again at the next scrape do not add up twice.
    expect((await scrape()).value("magis_environment_builds_total")).toBe(2);
    await shelf.settled();
  });
});
