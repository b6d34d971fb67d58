import { z } from "zod";
import type { NewTrigger } from "../store/triggers.js";

/**
 * A delivery as the spool keeps it on disk, read back through this schema before it is replayed. Version 1; files an
 * earlier version wrote carry no version and are version 1 too. A change that older files could not be read as needs
 * a new version (a union of both), so deliveries spooled before an upgrade are still replayed after it.
 */
export const spoolRecord = z.object({
  version: z.literal(1).default(1),
  /** `X-GitHub-Delivery`. */
  delivery: z.string().min(1).max(200),
  /** The event with its action, as the rules name it: `issues.labeled`. */
  event: z.string().regex(/^[a-z_]+\.[a-z_]*$/),
  installationId: z.number().int().positive(),
  owner: z.string().min(1),
  repo: z.string().min(1),
  number: z.number().int().nonnegative(),
  /** The webhook payload as GitHub sent it. */
  payload: z.record(z.string(), z.unknown()),
  receivedAt: z.number().int().nonnegative(),
});

/** The file text of a spooled delivery. */
export function writeSpoolRecord(trigger: NewTrigger): string {
  return JSON.stringify({ version: 1, ...trigger } satisfies z.input<typeof spoolRecord>);
}

/** The delivery a spooled file holds, or why it holds none (not JSON, or not the shape of one). */
export function readSpoolRecord(text: string): { trigger: NewTrigger } | { why: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { why: `it is not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  const result = spoolRecord.safeParse(parsed);
  if (!result.success) {
    const [first] = result.error.issues;
    return { why: `it is not a spooled delivery (${first?.path.join(".") || "the whole record"}: ${first?.message ?? "wrong shape"})` };
  }
  const { delivery, event, installationId, owner, repo, number, payload, receivedAt } = result.data;
  return { trigger: { delivery, event, installationId, owner, repo, number, payload, receivedAt } };
}
