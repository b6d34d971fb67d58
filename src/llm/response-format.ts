import { zodResponseFormat } from "openai/helpers/zod";
import type { ResponseFormatJSONSchema } from "openai/resources/shared";
import { z } from "zod";

// Built once per schema and prompt name; converting a schema is not free and stages reuse theirs.
const formats = new WeakMap<z.ZodType, Map<string, ResponseFormatJSONSchema>>();

/**
 * The `response_format` for a zod schema: OpenAI's strict form when the schema allows it (every
 * field required, no transforms), else the plain JSON Schema with `strict: false`, which servers
 * still use to guide the answer. zod validates the answer either way.
 */
export function responseFormatFor(schema: z.ZodType, name: string): ResponseFormatJSONSchema {
  const byName = formats.get(schema) ?? new Map<string, ResponseFormatJSONSchema>();
  formats.set(schema, byName);
  const known = byName.get(name);
  if (known) return known;
  const safeName = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  let format: ResponseFormatJSONSchema;
  try {
    const strict = zodResponseFormat(schema, safeName);
    format = { type: "json_schema", json_schema: strict.json_schema };
  } catch {
    format = { type: "json_schema", json_schema: { name: safeName, strict: false, schema: answerSchema(schema) } };
  }
  byName.set(name, format);
  return format;
}

/** The JSON Schema of what the model must write (zod's input side), for prompts and non-strict formats. */
export function answerSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/** The line added to the user message in plain JSON mode, where no response_format tells the server the shape. */
export function jsonModeInstruction(schema: z.ZodType): string {
  return `Answer with one JSON object and nothing else (no prose, no code fence). It must match this JSON Schema:\n${JSON.stringify(answerSchema(schema))}`;
}
