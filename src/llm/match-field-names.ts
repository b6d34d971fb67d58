import type { z } from "zod";

/**
 * `value` with its object keys renamed to the schema's where only the case or the word separators differ (`Approved`
 * → `approved`, `needsChange` → `needs_change`), at every depth the schema describes. A key is renamed only when the
 * reading is unambiguous: one field of the schema matches it, that field is not given already, and the key itself is
 * not a field. Anything else is left as it is, for the schema to refuse.
 */
export function matchFieldNames(value: unknown, schema: z.ZodType): unknown {
  const def = (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      return matchFieldNames(value, def.innerType!);
    case "pipe":
      return matchFieldNames(value, def.in!);
    case "lazy":
      return matchFieldNames(value, def.getter!());
    case "array":
      return Array.isArray(value) ? value.map((item) => matchFieldNames(item, def.element!)) : value;
    case "union":
      // The first option under which the value's keys all find their fields.
      return def.options!.map((option) => matchFieldNames(value, option)).find((renamed) => renamed !== value) ?? value;
    case "object":
      return isRecord(value) ? matchObject(value, def.shape!) : value;
    default:
      return value;
  }
}

interface ZodDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  shape?: Record<string, z.ZodType>;
}

function matchObject(value: Record<string, unknown>, shape: Record<string, z.ZodType>): Record<string, unknown> {
  const fields = Object.keys(shape);
  let changed = false;
  const entries = Object.entries(value).map(([key, item]): [string, unknown] => {
    const field = key in shape ? key : soleMatch(key, fields);
    const renamed = field !== undefined && (field === key || !(field in value)) ? field : key;
    const inner = renamed in shape ? matchFieldNames(item, shape[renamed]!) : item;
    if (renamed !== key || inner !== item) changed = true;
    return [renamed, inner];
  });
  // Two keys read as the same field (`Approved` and `APPROVED`): ambiguous, so nothing is renamed here.
  if (new Set(entries.map(([key]) => key)).size !== entries.length) return value;
  return changed ? Object.fromEntries(entries) : value;
}

function soleMatch(key: string, fields: string[]): string | undefined {
  const matching = fields.filter((field) => normalize(field) === normalize(key));
  return matching.length === 1 ? matching[0] : undefined;
}

function normalize(name: string): string {
  return name.toLowerCase().replace(/[_\-\s]/g, "");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
