import { z } from "zod";
import { matchFieldNames } from "./match-field-names.js";
import { parseJsonLeniently } from "./parse-json.js";

/** A model answer checked against its schema: the validated value, or what is wrong with it in words the model can act on. */
export type CheckedAnswer<T> = { ok: true; value: T } | { ok: false; error: string; parsed: unknown };

/**
 * Reads the JSON out of a raw answer (leniently: see parseJsonLeniently) and validates it with zod. Field names that
 * differ from the schema's in case or separators only (`Approved`) are read as the schema's where that is unambiguous
 * (see matchFieldNames); a field left out, a wrong type or a cut-off answer is refused with zod's precise problem.
 */
export function checkAnswer<T>(raw: string, schema: z.ZodType<T>): CheckedAnswer<T> {
  const fits = (value: unknown) => schema.safeParse(matchFieldNames(value, schema)).success;
  const parsed = parseJsonLeniently(raw, fits);
  if (!parsed.ok) return { ok: false, error: parsed.error, parsed: null };
  const result = schema.safeParse(matchFieldNames(parsed.value, schema));
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, error: `the JSON does not match the expected format:\n${z.prettifyError(result.error)}`, parsed: parsed.value };
}

/** The message that sends a failed answer back to the model for its one retry. */
export function correctionMessage(error: string): string {
  return `Your previous answer could not be used: ${error}\n\nAnswer again with one JSON object in the format described above, and nothing else.`;
}
