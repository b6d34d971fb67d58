import fs from "node:fs";
import { buildSchema, getVariableValues, GraphQLError, GraphQLScalarType, parse, validate, type GraphQLSchema, type OperationDefinitionNode } from "graphql";

/** The mutations the fake GitHub answers; graphql-extract.graphql holds them, cut from GitHub's published schema. */
export const SERVED_MUTATIONS = ["updateRefs", "createCommitOnBranch", "createPullRequest", "updatePullRequest"] as const;

/** Object types the extract keeps only these fields of (scripts/extract-github-graphql.ts): what the fake answers. */
export const SERVED_FIELDS: Record<string, string[]> = {
  CreateCommitOnBranchPayload: ["clientMutationId", "commit"],
  Commit: ["oid"],
  CreatePullRequestPayload: ["clientMutationId", "pullRequest"],
  UpdatePullRequestPayload: ["clientMutationId", "pullRequest"],
  PullRequest: ["id", "number", "url"],
};

const EXTRACT = new URL("./graphql-extract.graphql", import.meta.url);

/**
 * The scalars GitHub's schema declares only in words, held to them: its own description says what each one is.
 * graphql-js accepts any value for a custom scalar; GitHub refuses these.
 */
const SCALAR_RULES: Record<string, { test: (value: unknown) => boolean; rule: string }> = {
  // "A Git object ID." (GitHub answers "… is not a valid GitObjectID" to anything but 40 hex digits.)
  GitObjectID: { test: (v) => typeof v === "string" && /^[0-9a-f]{40}$/.test(v), rule: "a Git object ID (40 hex digits)" },
  // "A fully qualified reference name (e.g. `refs/heads/master`)."
  GitRefname: { test: (v) => typeof v === "string" && /^refs\/\S+$/.test(v), rule: "a fully qualified reference name (refs/heads/…)" },
  // "A (potentially binary) string encoded using base64"; FileChanges: "RFC 4648 compliant base64, i.e. correct padding is required".
  Base64String: {
    test: (v) => typeof v === "string" && /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v),
    rule: "RFC 4648 base64 with its padding",
  },
};

let loaded: GraphQLSchema | undefined;

/** The served part of GitHub's published GraphQL schema (graphql-extract.graphql), built once per process, with its scalars' rules. */
export function schema(): GraphQLSchema {
  if (loaded) return loaded;
  loaded = buildSchema(fs.readFileSync(EXTRACT, "utf8"));
  for (const [name, { test, rule }] of Object.entries(SCALAR_RULES)) {
    const scalar = loaded.getType(name) as GraphQLScalarType;
    scalar.parseValue = (value: unknown) => {
      if (!test(value)) throw new GraphQLError(`${JSON.stringify(value)} is not a valid ${name}: it must be ${rule}`);
      return value;
    };
  }
  return loaded;
}

/**
 * Problems of a GraphQL request against GitHub's schema: a document that does not parse or validate, an
 * operation that is not there, variables of the wrong type (scalars held to the rules above). Empty when it is good.
 */
export function checkGraphqlRequest(body: unknown): string[] {
  const request = body as { query?: unknown; variables?: unknown; operationName?: unknown } | undefined;
  if (typeof request?.query !== "string") return ["the body has no `query` string"];
  let document;
  try {
    document = parse(request.query);
  } catch (error) {
    return [(error as GraphQLError).message];
  }
  const invalid = validate(schema(), document);
  if (invalid.length > 0) return invalid.map((e) => e.message);
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === "OperationDefinition");
  const operation = operations.length === 1 ? operations[0] : operations.find((o) => o.name?.value === request.operationName);
  if (!operation) return [`no operation named ${JSON.stringify(request.operationName)} in the document`];
  const variables = request.variables ?? {};
  if (typeof variables !== "object" || Array.isArray(variables)) return ["`variables` is not an object"];
  const coerced = getVariableValues(schema(), operation.variableDefinitions ?? [], variables as Record<string, unknown>);
  return coerced.errors?.map((e) => e.message) ?? [];
}
