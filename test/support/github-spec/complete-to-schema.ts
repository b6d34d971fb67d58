type Json = any;

/** A schema that `$ref` names (`#/definitions/…`). */
export type ResolveRef = (ref: string) => object | undefined;

/**
 * `value` with every field its JSON schema requires, recursively: a missing field becomes null where the schema
 * allows null, else a value of its type (its first enum value, "", 0, false, [], or an object completed the same way).
 * Fields `value` has are kept as they are, so a wrong one still fails validation afterwards.
 */
export function completeToSchema(schema: object, value: unknown, resolve: ResolveRef): unknown {
  return new Completer(resolve).fill(schema, value, 0);
}

class Completer {
  constructor(private readonly resolve: ResolveRef) {}

  deref(schema: Json): Json {
    while (schema?.$ref) schema = this.resolve(schema.$ref);
    return schema ?? {};
  }

  /** allOf's parts as one schema: their properties and required fields together. */
  merged(schema: Json): Json {
    if (!schema.allOf) return schema;
    const parts = [schema, ...schema.allOf.map((part: Json) => this.merged(this.deref(part)))];
    const first = (key: string) => parts.find((p) => p[key] !== undefined)?.[key];
    return {
      type: first("type"),
      properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})),
      required: parts.flatMap((p) => p.required ?? []),
      items: first("items"),
      enum: first("enum"),
      const: first("const"),
      format: first("format"),
    };
  }

  /** The JSON types a schema admits (a union's: those of its branches). */
  typesOf(schema: Json): string[] {
    const branches = schema.anyOf ?? schema.oneOf;
    if (branches) return branches.flatMap((b: Json) => this.typesOf(this.merged(this.deref(b))));
    return [schema.type ?? (schema.properties ? "object" : [])].flat();
  }

  /** The branch of anyOf/oneOf that `value` was meant for: its type, and for objects the one naming most of its fields. */
  branchFor(branches: Json[], value: unknown): Json | undefined {
    const type = jsonType(value);
    const fitting = branches
      .map((b) => this.merged(this.deref(b)))
      .filter((b) => this.typesOf(b).some((t) => t === type || (t === "number" && type === "integer")));
    if (type !== "object") return fitting[0];
    const named = (b: Json) => Object.keys(value as object).filter((k) => b.properties && k in b.properties).length;
    return fitting.sort((a, b) => named(b) - named(a))[0];
  }

  fill(raw: Json, value: unknown, depth: number): unknown {
    const schema = this.merged(this.deref(raw));
    if (depth > 16) return value;
    const branches = schema.anyOf ?? schema.oneOf;
    if (branches) {
      if (value === undefined) return this.typesOf(schema).includes("null") ? null : this.fill(branches[0], undefined, depth);
      const branch = this.branchFor(branches, value);
      return branch ? this.fill(branch, value, depth) : value;
    }
    const types = this.typesOf(schema);
    if (value === undefined) {
      if (types.includes("null")) return null;
      value = placeholder(schema, types[0]);
    }
    if (value && typeof value === "object" && !Array.isArray(value) && schema.properties) {
      const out: Record<string, unknown> = { ...(value as object) };
      for (const name of schema.required ?? []) if (!(name in out)) out[name] = this.fill(schema.properties[name] ?? {}, undefined, depth + 1);
      for (const [name, field] of Object.entries(out))
        if (schema.properties[name] && field !== undefined) out[name] = this.fill(schema.properties[name], field, depth + 1);
      return out;
    }
    if (Array.isArray(value) && schema.items) return value.map((item) => this.fill(schema.items, item, depth + 1));
    return value;
  }
}

const jsonType = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "array" : typeof value === "number" ? (Number.isInteger(value) ? "integer" : "number") : typeof value;

function placeholder(schema: Json, type: string | undefined): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  switch (type) {
    case "string":
      if (schema.format === "date-time") return new Date(0).toISOString();
      if (schema.format === "uri") return "https://api.github.com/";
      if (schema.format === "email") return "octocat@github.com";
      return "";
    case "integer":
    case "number":
      return schema.minimum ?? 0;
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return {};
    default:
      return null;
  }
}
