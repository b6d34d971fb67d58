import type { z } from "zod";

/**
 * `value` with its object keys renamed to the schema's where only the case or the word separators differ (`Approved`
 * → `approved`, `needsChange` → `needs_change`), at every depth the schema describes. A key is renamed only when the
 * reading is unambiguous: one field of the schema matches it, that field is not given already, and the key itself is
 * not a field. Anything else is left as it is, for the schema to refuse.
 */
export function matchFieldNames(value: unknown, schema: z.ZodType): unknown {
  const def = definitionOf(schema);
  switch (def.type) {
    case "array":
      return Array.isArray(value) ? value.map((item) => matchFieldNames(item, def.element!)) : value;
    case "union":
      return matchOption(value, def.options!);
    case "object":
      return isRecord(value) ? matchObject(value, def.shape!) : value;
    default:
      return value;
  }
}

/**
 * The value renamed under the first option of a union under which its keys (once renamed) all find their fields, so a
 * value is never renamed towards an option it does not fit; the value as it is when no option takes all its keys.
 */
function matchOption(value: unknown, options: z.ZodType[]): unknown {
  for (const option of options) {
    const renamed = matchFieldNames(value, option);
    if (keysFit(renamed, option)) return renamed;
  }
  return value;
}

/** Whether every key of `value` is a field of `schema` (each item's, for an array); a value without keys fits any non-object schema. */
function keysFit(value: unknown, schema: z.ZodType): boolean {
  const def = definitionOf(schema);
  switch (def.type) {
    case "object":
      return isRecord(value) && Object.keys(value).every((key) => key in def.shape!);
    case "array":
      return Array.isArray(value) && value.every((item) => keysFit(item, def.element!));
    case "union":
      return def.options!.some((option) => keysFit(value, option));
    case "record":
    case "any":
    case "unknown":
      return true;
    default:
      return !isRecord(value) && !Array.isArray(value);
  }
}

/** The definition of the schema that decides the value's shape, behind optional, nullable, default, pipe and lazy. */
function definitionOf(schema: z.ZodType): ZodDef {
  const def = (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      return definitionOf(def.innerType!);
    case "pipe":
      return definitionOf(def.in!);
    case "lazy":
      return definitionOf(def.getter!());
    default:
      return def;
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
