import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
// The package ships its examples as JSON (its main); each definition lists real payloads per event.
const definitions = require("@octokit/webhooks-examples") as { name: string; examples: { action?: string }[] }[];

/** A deep copy of the first real example payload of `event` with `action`, from @octokit/webhooks-examples. */
export function examplePayload(event: string, action: string): any {
  const definition = definitions.find((d) => d.name === event);
  const example = definition?.examples.find((e) => e.action === action);
  if (!example) throw new Error(`@octokit/webhooks-examples has no ${event}.${action} example`);
  return structuredClone(example);
}

/** The real `issues.labeled` example, with the label, sender and installation a test needs. */
export function labeledPayload(options: { label?: string; sender?: string; senderType?: "User" | "Bot"; installationId: number }) {
  const payload = examplePayload("issues", "labeled");
  payload.label.name = options.label ?? "magis";
  payload.issue.labels.push(payload.label);
  payload.sender.login = options.sender ?? payload.sender.login;
  payload.sender.type = options.senderType ?? "User";
  payload.installation = { id: options.installationId, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNzc=" };
  return payload;
}

/** The real `issue_comment.created` example with the given comment body, sender and installation. */
export function commentPayload(options: { body: string; sender?: string; installationId: number }) {
  const payload = examplePayload("issue_comment", "created");
  payload.comment.body = options.body;
  payload.comment.user.login = options.sender ?? payload.comment.user.login;
  payload.sender.login = options.sender ?? payload.sender.login;
  payload.installation = { id: options.installationId, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNzc=" };
  return payload;
}
