// The webhook server alone (its guard in front of Probot), in a process of its own so that its memory is measured apart
// from the clients': prints `port N`, then on each line it reads from stdin `rss R peak P` (bytes) and resets the peak.
import { pino } from "pino";
import { Probot } from "probot";
import { startWebhookServer } from "../../src/server/start-webhook-server.js";
import { appPrivateKey } from "../../test/support/app-private-key.js";

const probot = new Probot({ appId: 1, privateKey: appPrivateKey(), secret: "bench-secret", log: pino({ level: "silent" }) });
const server = await startWebhookServer({ probot, app: () => {}, host: "127.0.0.1", port: 0 });
let peak = process.memoryUsage().rss;
setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10).unref();
process.stdout.write(`port ${server.port}\n`);
process.stdin.on("data", () => {
  const rss = process.memoryUsage().rss;
  process.stdout.write(`rss ${rss} peak ${Math.max(peak, rss)}\n`);
  peak = rss;
});
process.stdin.on("end", () => void server.stop().then(() => process.exit(0)));
