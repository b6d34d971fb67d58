/**
 * Writes test/support/github-spec/graphql-extract.graphql: the part of GitHub's GraphQL schema that the fake GitHub
 * (test/support/github-api.ts) answers, cut from the schema @octokit/graphql-schema publishes: the mutations below,
 * every type they reach, and a Query root of `node` alone (a schema must have one). The fake parses and validates
 * each GraphQL document against it; building the whole 5 MB schema took 0.7 to 2 s in every test process.
 * An object type named in SERVED_FIELDS keeps only those fields and no interfaces (`Commit` reaches nearly the whole
 * schema): a document asking for another of its fields is refused by the fake though GitHub would answer it.
 *
 * Run by hand when the fake answers another mutation or the package is bumped:
 *
 *   cd "$(mktemp -d)" && npm pack @octokit/graphql-schema@15.26.1 && tar xzf octokit-graphql-schema-15.26.1.tgz
 *   npx tsx scripts/extract-github-graphql.ts "$PWD/package"      # from the repository's root
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  buildClientSchema,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  isListType,
  isNonNullType,
  isObjectType,
  printSchema,
  type GraphQLOutputType,
  type IntrospectionQuery,
} from "graphql";
import { SERVED_FIELDS, SERVED_MUTATIONS } from "../test/support/github-spec/graphql-spec.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.join(ROOT, "test/support/github-spec/graphql-extract.graphql");

const packageDir = process.argv[2];
if (!packageDir || !fs.existsSync(path.join(packageDir, "schema.json"))) {
  console.error("Usage: tsx scripts/extract-github-graphql.ts <unpacked @octokit/graphql-schema package folder> (see the comment at the top of this script)");
  process.exit(2);
}
const pkg = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8")) as { name: string; version: string };
const full = buildClientSchema(JSON.parse(fs.readFileSync(path.join(packageDir, "schema.json"), "utf8")) as IntrospectionQuery);
const only = (type: GraphQLObjectType, names: readonly string[]) => {
  const config = type.toConfig();
  const missing = names.filter((name) => !config.fields[name]);
  if (missing.length > 0) throw new Error(`${pkg.name}@${pkg.version} has no ${type.name}.${missing.join(", ")}`);
  return new GraphQLObjectType({ ...config, fields: Object.fromEntries(names.map((name) => [name, config.fields[name]!])) });
};
/** Payload types as GitHub has them, but the types of SERVED_FIELDS cut to those fields (and so to no interface). */
const trimmed = new Map<string, GraphQLObjectType>();
const trim = (type: GraphQLOutputType): GraphQLOutputType => {
  if (isNonNullType(type)) return new GraphQLNonNull(trim(type.ofType) as Exclude<GraphQLOutputType, GraphQLNonNull<never>>) as GraphQLOutputType;
  if (isListType(type)) return new GraphQLList(trim(type.ofType));
  if (!isObjectType(type)) return type;
  const fields = SERVED_FIELDS[type.name];
  if (!fields) return type;
  if (!trimmed.has(type.name)) trimmed.set(type.name, new GraphQLObjectType({ ...only(type, fields).toConfig(), interfaces: [] }));
  return trimmed.get(type.name)!;
};
const mutation = only(full.getMutationType()!, SERVED_MUTATIONS).toConfig();
const payloads = Object.fromEntries(
  Object.entries(mutation.fields).map(([name, field]) => {
    const payload = trim(field.type) as GraphQLObjectType;
    const config = payload.toConfig();
    const fields = Object.fromEntries(Object.entries(config.fields).map(([key, f]) => [key, { ...f, type: trim(f.type) }]));
    return [name, { ...field, type: new GraphQLObjectType({ ...config, fields }) }];
  }),
);
const extract = new GraphQLSchema({ query: only(full.getQueryType()!, ["node"]), mutation: new GraphQLObjectType({ ...mutation, fields: payloads }) });
const header = `# The part of GitHub's GraphQL schema the fake GitHub answers, from ${pkg.name}@${pkg.version} (schema.json),\n# written by scripts/extract-github-graphql.ts.\n\n`;
fs.writeFileSync(OUT, header + printSchema(extract) + "\n");
console.log(`${path.relative(ROOT, OUT)}: ${Object.keys(extract.getTypeMap()).length} types, ${fs.statSync(OUT).size} bytes`);
