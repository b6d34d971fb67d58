import { z } from "zod";
import { configSchema } from "../../../config.js";

/**
 * The data a `revise-pull-request` job carries from its trigger, read back through this schema when the job runs.
 * Version 1; records written before the payload carried a version are version 1 too (see resolvePayload).
 */
export const revisePayload = z.object({
  version: z.literal(1).default(1),
  /** The validated config read when the trigger arrived. */
  config: configSchema,
  /** Who started it and how, as the status comment says it. */
  trigger: z.string(),
  /** The review whose inline comments are the feedback, if a review started it. */
  reviewId: z.number().int().optional(),
  /** The review's text (cleaned), or "". */
  reviewBody: z.string(),
  /** `/magis revise` guidance (cleaned), or "": a bare `/magis revise` revises the latest review again. */
  guidance: z.string(),
  /** The `/magis revise` comment (gets the reactions), if one started it. */
  commentId: z.number().int().optional(),
  /** Who asked for the revision (named in the summary and the revision history). */
  reviewer: z.string(),
  /** When the review or command was made: comments written later are not read as hints. */
  triggeredAt: z.string().optional(),
  /**
   * Set when CI failed on the bot's latest commit: the feedback is the failed checks of `headSha`, read when the job runs,
   * and this is fix `attempt` of at most `of`.
   */
  ci: z.object({ headSha: z.string(), attempt: z.number().int(), of: z.number().int() }).optional(),
});

/** A `revise-pull-request` job's payload, as read back. */
export type ReviseJobPayload = z.output<typeof revisePayload>;
