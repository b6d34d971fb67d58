import { sign } from "../e2e/start-app.js";
import { assertWebhookPayload } from "./github-spec/webhook-spec.js";

/**
 * POSTs a webhook to `url` (…/api/github/webhooks) signed with `secret`, as GitHub does; its status and how long the
 * answer took. The payload must be one GitHub sends (checked against @octokit/webhooks-schemas first).
 */
export async function postWebhook(
  url: string,
  secret: string,
  webhook: { event: string; payload: unknown; delivery: string },
): Promise<{ status: number; ms: number }> {
  assertWebhookPayload(webhook.event, webhook.payload);
  const body = JSON.stringify(webhook.payload);
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": webhook.event,
      "x-github-delivery": webhook.delivery,
      "x-hub-signature-256": sign(secret, body),
    },
    body,
  });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}
