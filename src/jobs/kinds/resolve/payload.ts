import { z } from "zod";
import { configSchema } from "../../../config.js";

/**
 * The data a `resolve-issue` job carries from its trigger, read back through this schema when the job runs. Version 1;
 * records written before the payload carried a version are version 1 too. A change that older records could not be
 * read as needs a new version (a union of both), so a job queued before an upgrade still runs after it.
 */
export const resolvePayload = z.object({
  version: z.literal(1).default(1),
  /** The validated config read when the trigger was decided. */
  config: configSchema,
  /** Who started it and how, as the status comment says it. */
  trigger: z.string(),
  /** `/magis retry` guidance (already cleaned), or "". */
  guidance: z.string(),
  /**
   * The issue's title, body and author as the webhook carried them: an edit after the trigger does not reach the
   * agents. Absent from jobs an earlier version queued; those read the issue when they run.
   */
  issue: z.object({ title: z.string(), body: z.string(), author: z.string() }).optional(),
  /** When the trigger happened (ISO 8601): comments written or edited later are not read as hints. */
  triggeredAt: z.string().optional(),
  /** The comment that triggered the run (gets the reactions), or absent for a label. */
  commentId: z.number().int().optional(),
  /** The label that started the run: if it is gone before publishing, nothing is published. */
  label: z.string().optional(),
});

/** A `resolve-issue` job's payload, as read back. */
export type ResolveJobPayload = z.output<typeof resolvePayload>;
