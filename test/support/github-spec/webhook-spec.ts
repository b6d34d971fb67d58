import { createRequire } from "node:module";
import { Ajv, type ValidateFunction } from "ajv";
import { completeToSchema } from "./complete-to-schema.js";
import { addFormats } from "./json-formats.js";

const require = createRequire(import.meta.url);

let ajv: Ajv | undefined;
let definitions: Record<string, unknown> = {};
const compiled = new Map<string, ValidateFunction>();

/** The schema of one event and action in @octokit/webhooks-schemas (`issues$labeled`; `ping$event` for one without actions). */
function validatorFor(name: string): ValidateFunction | undefined {
  if (!ajv) {
    const published = require("@octokit/webhooks-schemas") as { definitions: Record<string, unknown> };
    definitions = published.definitions;
    ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv, published);
    ajv.addSchema({ $id: "webhooks", definitions });
  }
  if (!(name in definitions)) return undefined;
  let validate = compiled.get(name);
  if (!validate) compiled.set(name, (validate = ajv.compile({ $ref: `webhooks#/definitions/${name}` })));
  return validate;
}

/** The schema name of an event and its action, and how a message shows them. */
function nameOf(event: string, payload: unknown): { name: string; shown: string } {
  const action = (payload as { action?: unknown } | null)?.action;
  return typeof action === "string" ? { name: `${event}$${action}`, shown: `${event}.${action}` } : { name: `${event}$event`, shown: event };
}

/**
 * An example payload of @octokit/webhooks-examples completed to the schema of the same release: the examples were
 * captured years ago, and GitHub has added required fields since (a repository's `topics`, a comment's `reactions`).
 */
export function completeWebhookPayload<T>(event: string, payload: T): T {
  const { name, shown } = nameOf(event, payload);
  if (!validatorFor(name)) throw new Error(`@octokit/webhooks-schemas has no schema for the ${shown} webhook`);
  return completeToSchema(definitions[name] as object, payload, (ref) => definitions[ref.replace("#/definitions/", "")] as object | undefined) as T;
}

/** Throws, naming what is wrong, unless `payload` validates against GitHub's published schema of `event` and its action. */
export function assertWebhookPayload(event: string, payload: unknown): void {
  const { name, shown } = nameOf(event, payload);
  const validate = validatorFor(name);
  if (!validate) throw new Error(`@octokit/webhooks-schemas has no schema for the ${shown} webhook: GitHub sends no such event.`);
  if (validate(payload)) return;
  const problems = [...new Set((validate.errors ?? []).map((e) => `payload${e.instancePath} ${e.message}`))];
  throw new Error(
    `The ${shown} webhook this test sends is not one GitHub sends (@octokit/webhooks-schemas):\n- ${problems.slice(0, 10).join("\n- ")}` +
      (problems.length > 10 ? `\n- and ${problems.length - 10} more` : ""),
  );
}
