// Sends signed label webhooks to a web process at a fixed rate, as GitHub would, from a process of its own (so that
// fake GitHub and the model, which the benchmark serves, do not delay the answers it times). Run by
// measure-webhook-latency.ts:
//
//   node --import tsx bench/lib/send-webhooks.ts '{"url":…,"rate":50,"seconds":20,"firstIssue":5,"installationId":77}'
//
// with the secret in MAGIS_SCALE_WEBHOOK_SECRET. It sends delivery `load-<i>` for issue firstIssue + i on schedule,
// without waiting for earlier answers (each delivery built and signed before the first is sent), and prints one JSON line: each answer's status and time, and how late this
// process's timers ran meanwhile.
import http from "node:http";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { labeledPayload } from "../../test/e2e/payloads.js";
import { sign } from "../../test/e2e/start-app.js";
import { assertWebhookPayload } from "../../test/support/github-spec/webhook-spec.js";

const { url, rate, seconds, firstIssue, installationId } = JSON.parse(process.argv[2]!) as {
  url: string;
  rate: number;
  seconds: number;
  firstIssue: number;
  installationId: number;
};
const secret = process.env.MAGIS_SCALE_WEBHOOK_SECRET!;
const count = rate * seconds;
// Every delivery is built, checked against GitHub's schema and signed before the first is sent: on schedule, this
// process only sends, so that its own work does not delay the answers it times.
const deliveries = Array.from({ length: count }, (_, i) => {
  const payload = labeledPayload({ installationId, issueNumber: firstIssue + i });
  assertWebhookPayload("issues", payload);
  const body = Buffer.from(JSON.stringify(payload));
  const headers = {
    "content-type": "application/json",
    "content-length": String(body.length),
    "x-github-event": "issues",
    "x-github-delivery": `load-${i}`,
    "x-hub-signature-256": sign(secret, body.toString()),
  };
  return { body, headers };
});
// Connections are kept and reused once answered (as GitHub's are), not opened anew for each delivery.
const agent = new http.Agent({ keepAlive: true });
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
const started = performance.now();
const answers = await Promise.all(
  deliveries.map(async (delivery, i) => {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + (i * 1000) / rate - performance.now())));
    return post(delivery).catch((error: unknown) => ({ status: 0, ms: Number.NaN, error: String(error) }));
  }),
);
loop.disable();
agent.destroy();
process.stdout.write(`${JSON.stringify({ answers, loopDelay: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 } })}\n`);

/** POSTs one delivery; its status and the time from sending it to the end of the answer. */
function post(delivery: { body: Buffer; headers: Record<string, string> }): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const sent = performance.now();
    const request = http.request(url, { method: "POST", agent, headers: delivery.headers }, (response) => {
      response.resume();
      response.once("end", () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - sent }));
      response.once("error", reject);
    });
    request.once("error", reject);
    request.end(delivery.body);
  });
}
