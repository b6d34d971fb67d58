import { z } from "zod";
import { parseJsonLeniently } from "./parse-json.js";

/** A model answer checked against its schema: the validated value, or what is wrong with it in words the model can act on. */
export type CheckedAnswer<T> = { ok: true; value: T } | { ok: false; error: string; parsed: unknown };

/** Reads the JSON out of a raw answer (leniently) and validates it with zod. */
export function checkAnswer<T>(raw: string, schema: z.ZodType<T>): CheckedAnswer<T> {
  const parsed = parseJsonLeniently(raw, (value) => schema.safeParse(value).success);
  if (!parsed.ok) return { ok: false, error: parsed.error, parsed: null };
  const result = schema.safeParse(parsed.value);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, error: `the JSON does not match the expected format:\n${z.prettifyError(result.error)}`, parsed: parsed.value };
}

/** The message that sends a failed answer back to the model for its one retry. */
export function correctionMessage(error: string): string {
  return `Your previous answer could not be used: ${error}\n\nAnswer again with one JSON object in the format described above, and nothing else.`;
}
