/**
 * Writes test/support/github-spec/openapi-extract.json: the operations of GitHub's REST API that the fake GitHub
 * (test/support/github-api.ts) serves, cut from GitHub's own OpenAPI description as @octokit/openapi publishes it,
 * with the component schemas they reference. The package is 385 MB (every GHES version, three forms of each); the
 * extract keeps what the strict fake checks requests and answers against.
 *
 * Run by hand when the fake serves a new route or the package is bumped (test/unit/support/github-spec.test.ts
 * fails until then):
 *
 *   cd "$(mktemp -d)" && npm pack @octokit/openapi@23.0.2 && tar xzf octokit-openapi-23.0.2.tgz
 *   npx tsx scripts/extract-github-openapi.ts "$PWD/package"      # from the repository's root
 *
 * The schemas become plain JSON Schema (draft 7) on the way: OpenAPI 3.0's `nullable` is turned into a `null` type,
 * and what validation does not read (descriptions, examples, titles, extensions) is dropped.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { servedOperations } from "../test/support/github-api.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.join(ROOT, "test/support/github-spec/openapi-extract.json");

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- GitHub's OpenAPI document is walked as loose JSON
type Json = any;

/** The keywords of a schema that validation reads; everything else is dropped. */
const KEPT = new Set([
  "type",
  "properties",
  "required",
  "items",
  "enum",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "$ref",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
  "additionalProperties",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "nullable",
]);

/** An OpenAPI 3.0 schema as JSON Schema: kept keywords only, `nullable` as a null type, refs into the extract. */
function toJsonSchema(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (!schema || typeof schema !== "object") return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!KEPT.has(key)) continue;
    if (key === "$ref") out.$ref = (value as string).replace("#/components/schemas/", "#/definitions/");
    else if (key === "properties") out.properties = Object.fromEntries(Object.entries(value as object).map(([name, s]) => [name, toJsonSchema(s)]));
    else if (key === "enum" || key === "required" || key === "type" || key === "nullable") out[key] = value;
    else out[key] = toJsonSchema(value);
  }
  if (!out.nullable) return (delete out.nullable, out);
  delete out.nullable;
  // `nullable` alone allows anything, null included.
  if (Object.keys(out).length === 0) return out;
  if (typeof out.type === "string") {
    out.type = [out.type, "null"];
    if (out.enum && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [{ type: "null" }, out] };
}

/** Every `#/definitions/…` name that `schema` refers to, directly. */
function refsOf(schema: Json, into: Set<string>): Set<string> {
  if (Array.isArray(schema)) schema.forEach((s) => refsOf(s, into));
  else if (schema && typeof schema === "object") {
    if (typeof schema.$ref === "string") into.add(schema.$ref.replace("#/definitions/", ""));
    Object.values(schema).forEach((s) => refsOf(s, into));
  }
  return into;
}

function main(packageDir: string): void {
  const pkg = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8")) as { name: string; version: string };
  const spec = JSON.parse(fs.readFileSync(path.join(packageDir, "generated/api.github.com.json"), "utf8")) as Json;
  const resolve = (node: Json): Json => {
    if (!node?.$ref) return node;
    const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec(node.$ref)!;
    return spec.components[section!][name!];
  };
  const operations: Record<string, Json> = {};
  for (const key of [...servedOperations()].sort()) {
    const [method, route] = key.split(" ") as [string, string];
    const operation = spec.paths[route]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${key}: GitHub's OpenAPI description (${pkg.name}@${pkg.version}) has no such operation; fix the fake's route.`);
    const body = operation.requestBody ? resolve(operation.requestBody) : undefined;
    operations[key] = {
      operationId: operation.operationId,
      documentationUrl: operation.externalDocs?.url,
      enabledForGitHubApps: operation["x-github"]?.enabledForGitHubApps === true,
      parameters: (operation.parameters ?? []).map(resolve).map((p: Json) => ({
        name: p.name,
        in: p.in,
        required: p.required === true,
        schema: toJsonSchema(p.schema),
      })),
      requestBody: body && { required: body.required === true, schema: toJsonSchema(body.content?.["application/json"]?.schema) },
      responses: Object.fromEntries(
        Object.entries(operation.responses as Record<string, Json>).map(([status, response]) => {
          const content = resolve(response).content ?? {};
          return [status, { mediaTypes: Object.keys(content), schema: content["application/json"] ? toJsonSchema(content["application/json"].schema) : null }];
        }),
      ),
    };
  }
  // The component schemas the operations reach, following refs from schema to schema.
  const schemas: Record<string, Json> = {};
  const pending = [...refsOf(operations, new Set())];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (schemas[name]) continue;
    schemas[name] = toJsonSchema(spec.components.schemas[name]);
    pending.push(...refsOf(schemas[name], new Set()));
  }
  const extract = {
    source: `${pkg.name}@${pkg.version} generated/api.github.com.json (OpenAPI ${spec.openapi}), written by scripts/extract-github-openapi.ts`,
    operations,
    definitions: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
  };
  fs.writeFileSync(OUT, JSON.stringify(extract, null, 1) + "\n");
  console.log(
    `${path.relative(ROOT, OUT)}: ${Object.keys(operations).length} operations, ${Object.keys(schemas).length} schemas, ${fs.statSync(OUT).size} bytes`,
  );
}

const packageDir = process.argv[2];
if (!packageDir || !fs.existsSync(path.join(packageDir, "generated/api.github.com.json"))) {
  console.error("Usage: tsx scripts/extract-github-openapi.ts <unpacked @octokit/openapi package folder> (see the comment at the top of this script)");
  process.exit(2);
}
main(path.resolve(packageDir));
