import fs from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import { completeToSchema } from "./complete-to-schema.js";
import { addFormats } from "./json-formats.js";

/** One operation of openapi-extract.json (written by scripts/extract-github-openapi.ts). */
export interface Operation {
  operationId: string;
  documentationUrl?: string;
  enabledForGitHubApps: boolean;
  parameters: { name: string; in: "path" | "query" | "header"; required: boolean; schema: object }[];
  requestBody?: { required: boolean; schema?: object };
  /** Per status: the media types GitHub answers with, and the JSON answer's schema (null when there is none). */
  responses: Record<string, { mediaTypes: string[]; schema: object | null }>;
}

interface Extract {
  source: string;
  operations: Record<string, Operation>;
  definitions: Record<string, object>;
}

interface Loaded {
  extract: Extract;
  /** Stops at the first error: half the compile time of `thorough`, which is compiled only to describe a failure. */
  fast: Ajv;
  thorough: Ajv;
  /** For parameters, whose values arrive as text. */
  coercing: Ajv;
  compiled: Map<string, ValidateFunction>;
}

let loaded: Loaded | undefined;

/**
 * The extract and its validators, loaded once per process; each schema is compiled the first time it is needed.
 * Each definition is a schema of its own (`urn:openapi:<name>`), compiled once however many operations refer to it.
 */
function spec() {
  if (loaded) return loaded;
  const extract = JSON.parse(fs.readFileSync(new URL("./openapi-extract.json", import.meta.url), "utf8")) as Extract;
  const make = (allErrors: boolean, coerceTypes = false) => {
    const ajv = new Ajv({ strict: false, allErrors, inlineRefs: false, unicodeRegExp: false, coerceTypes });
    addFormats(ajv, extract);
    for (const [name, definition] of Object.entries(extract.definitions)) ajv.addSchema(absolute(definition), `urn:openapi:${name}`);
    return ajv;
  };
  loaded = { extract, fast: make(false), thorough: make(true), coercing: make(true, true), compiled: new Map() };
  return loaded;
}

/** A schema whose refs (`#/definitions/<name>`) name the definitions as ajv knows them. */
const absolute = (schema: object): object => JSON.parse(JSON.stringify(schema).replaceAll('"#/definitions/', '"urn:openapi:'));

type Flavour = "fast" | "thorough" | "coercing";

function validator(cacheKey: string, schema: () => object, flavour: Flavour = "fast"): ValidateFunction {
  const { compiled } = spec();
  const key = `${flavour} ${cacheKey}`;
  let validate = compiled.get(key);
  if (!validate) compiled.set(key, (validate = spec()[flavour].compile(absolute(schema()))));
  return validate;
}

/** Problems of `data` against a schema: none when it is valid, else every problem (the first ten). */
function problems(cacheKey: string, schema: () => object, data: unknown, root: string): string[] {
  if (validator(cacheKey, schema)(data)) return [];
  const thorough = validator(cacheKey, schema, "thorough");
  thorough(data);
  return describe(thorough, root);
}

/** The errors of the last validation, one line each (`body/title must be string`), the first ten of them. */
function describe(validate: ValidateFunction, root: string): string[] {
  const lines = [
    ...new Set(
      (validate.errors ?? []).map(
        (e) => `${root}${e.instancePath} ${e.message}${e.params && "allowedValues" in e.params ? ` (${e.params.allowedValues.join(", ")})` : ""}`,
      ),
    ),
  ];
  return lines.length > 10 ? [...lines.slice(0, 10), `and ${lines.length - 10} more`] : lines;
}

/** Where openapi-extract.json came from: the package and version. */
export const extractSource = (): string => spec().extract.source;

/** The operations of openapi-extract.json, by `METHOD /path/{param}`. */
export const operations = (): Record<string, Operation> => spec().extract.operations;

/** Compiles every schema of every operation now, rather than at its first use. */
export function compileAll(): void {
  for (const [key, operation] of Object.entries(operations())) {
    checkParameters(key, "path", {});
    checkParameters(key, "query", {});
    if (operation.requestBody?.schema) validator(`${key} body`, () => operation.requestBody!.schema!);
    for (const [status, response] of Object.entries(operation.responses)) if (response.schema) validator(`${key} ${status}`, () => response.schema!);
  }
}

/** Problems of a request's path or query parameters (`where`), after coercing their text as GitHub would. */
export function checkParameters(key: string, where: "path" | "query", values: Record<string, string>): string[] {
  const declared = operations()[key]!.parameters.filter((p) => p.in === where);
  const validate = validator(
    `${key} ${where}`,
    () => ({
      type: "object",
      properties: Object.fromEntries(declared.map((p) => [p.name, p.schema])),
      required: declared.filter((p) => p.required).map((p) => p.name),
    }),
    "coercing",
  );
  const copy = { ...values };
  const unknown = Object.keys(values)
    .filter((name) => !declared.some((p) => p.name === name))
    .map((name) => `${where} parameter '${name}' is not one of the operation's (${declared.map((p) => p.name).join(", ") || "none"})`);
  return validate(copy) ? unknown : [...unknown, ...describe(validate, where)];
}

/** Problems of a request's JSON body against the operation's request body schema. */
export function checkRequestBody(key: string, body: unknown): string[] {
  const requestBody = operations()[key]!.requestBody;
  if (!requestBody?.schema) return [];
  return problems(`${key} body`, () => requestBody.schema!, body, "body");
}

/** Problems of an answer's JSON body against the schema of its status (none when the operation declares no schema for it). */
export function checkAnswerBody(key: string, status: number, body: unknown): string[] {
  const schema = operations()[key]!.responses[String(status)]?.schema;
  if (!schema) return [];
  return problems(`${key} ${status}`, () => schema, body, "answer");
}

/**
 * The answer with every field its schema requires: the fake sets the fields it models, and the rest are filled
 * from the schema, null where GitHub allows null (so code reading such a field meets null), else a value of its type.
 */
export function completeAnswer(key: string, status: number, body: unknown): unknown {
  const schema = operations()[key]!.responses[String(status)]?.schema;
  return schema ? completeToSchema(schema, body, (ref) => spec().extract.definitions[ref.replace("#/definitions/", "")]) : body;
}
