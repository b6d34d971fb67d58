// Sends signed label webhooks to a web process at a fixed rate, as GitHub would, from a process of its own (so that
// fake GitHub and the model, which the benchmark serves, do not delay the answers it times). Run by
// measure-webhook-latency.ts:
//
//   node --import tsx bench/lib/send-webhooks.ts '{"url":…,"rate":50,"seconds":20,"firstIssue":5,"installationId":77}'
//
// with the secret in MAGIS_SCALE_WEBHOOK_SECRET. It sends delivery `load-<i>` for issue firstIssue + i on schedule,
// without waiting for earlier answers, and prints one JSON line: each answer's status and time, and how late this
// process's timers ran meanwhile.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { labeledPayload } from "../../test/e2e/payloads.js";
import { postWebhook } from "../../test/support/post-webhook.js";

const { url, rate, seconds, firstIssue, installationId } = JSON.parse(process.argv[2]!) as {
  url: string;
  rate: number;
  seconds: number;
  firstIssue: number;
  installationId: number;
};
const secret = process.env.MAGIS_SCALE_WEBHOOK_SECRET!;
const count = rate * seconds;
const payloads = Array.from({ length: count }, (_, i) => labeledPayload({ installationId, issueNumber: firstIssue + i }));
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
const started = performance.now();
const answers = await Promise.all(
  payloads.map(async (payload, i) => {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + (i * 1000) / rate - performance.now())));
    return postWebhook(url, secret, { event: "issues", payload, delivery: `load-${i}` }).catch((error: unknown) => ({
      status: 0,
      ms: Number.NaN,
      error: String(error),
    }));
  }),
);
loop.disable();
process.stdout.write(`${JSON.stringify({ answers, loopDelay: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 } })}\n`);
