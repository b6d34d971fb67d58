import { z } from "zod";
import { configSchema } from "../../config.js";

/** A JSON Schema, as much of it as the docs read. */
export interface JsonSchema {
  $schema?: string;
  title?: string;
  description?: string;
  type?: string;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  pattern?: string;
}

/**
 * The JSON Schema of `.github/magis.yml`, from its zod schema, as a file `input` describes: every key optional (each
 * has a default or is optional), as a maintainer writes it. docs/magis.schema.json holds it, for editors.
 */
export function configJsonSchema(): JsonSchema {
  return z.toJSONSchema(configSchema, { io: "input" }) as JsonSchema;
}

/** The text of docs/magis.schema.json. */
export function renderConfigSchema(): string {
  const { $schema, title, description, ...rest } = configJsonSchema();
  return `${JSON.stringify({ $schema, title, description, ...rest }, null, 2)}\n`;
}
