// Index speed of the Custodian: lists, reads and indexes a large tree of real source files, then
// times queries against the built index.
//
//   npm run bench:index [-- --dir DIR] [--queries N]
//
// DIR defaults to this project's own node_modules (thousands of real .js/.ts files). The candidate
// listing leaves out nested node_modules and dist folders, as it would in a repository.
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildQuery } from "../src/pipeline/locate/build-query.js";
import { listCandidates } from "../src/pipeline/locate/list-candidates.js";
import { indexFiles } from "../src/pipeline/locate/rank-files.js";

const { values } = parseArgs({
  options: {
    dir: { type: "string", default: path.resolve(import.meta.dirname, "..", "node_modules") },
    queries: { type: "string", default: "20" },
  },
});

const issues = [
  { title: "createLlm retries 429 responses forever", body: "The openai client ignores `maxRetries` when the server sends `retry-after`." },
  { title: "parseArgs crashes on --no-color", body: "```\nTypeError: Cannot read properties of undefined (reading 'type')\n    at parseArgs (lib/internal/util/parse_args.js:120:11)\n```" },
  { title: "zod discriminatedUnion loses error paths", body: "`z.discriminatedUnion('kind', [...]).safeParse(x)` reports the issue at the root instead of `kind`." },
  { title: "vitest watch mode re-runs every file", body: "Changing one test file in watch mode reruns the whole suite; `--changed` is ignored." },
  { title: "Octokit paginate stops after first page", body: "`octokit.paginate(octokit.rest.issues.listComments, {...})` returns only 30 items; the Link header is ignored." },
];

const started = performance.now();
const candidates = await listCandidates(values.dir, { exclude: [], maxFileBytes: 512 * 1024 });
const listed = performance.now();
const index = await indexFiles(candidates.files);
const indexed = performance.now();
const megabytes = candidates.files.reduce((sum, f) => sum + f.bytes.length, 0) / 1e6;

const count = Number(values.queries);
const latencies: number[] = [];
for (let i = 0; i < count; i++) {
  const issue = issues[i % issues.length]!;
  const t = performance.now();
  await index.rank(buildQuery({ ...issue, hints: [] }), 10);
  latencies.push(performance.now() - t);
}
const first = latencies[0]!;
latencies.sort((a, b) => a - b);
const total = indexed - started;

console.log(`tree:    ${values.dir}`);
console.log(`files:   ${candidates.files.length} candidates (${megabytes.toFixed(1)} MB of text); skipped ${JSON.stringify(candidates.skipped)}`);
console.log(`listing: ${(listed - started).toFixed(0)} ms (walk, read, binary/minified/generated checks)`);
console.log(`index:   ${(indexed - listed).toFixed(0)} ms (tokenize, count, build both BM25 indexes)`);
console.log(`total:   ${total.toFixed(0)} ms = ${((candidates.files.length / total) * 1000).toFixed(0)} files/s  (target: under 3000 ms)`);
console.log(
  `query:   median ${latencies[Math.floor(latencies.length / 2)]!.toFixed(1)} ms, max ${latencies[latencies.length - 1]!.toFixed(1)} ms over ${count} queries; the first (what one locate run waits for) ${first.toFixed(1)} ms (target: under 50 ms)`,
);
console.log(`machine: ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")} (the machine is shared; figures vary with load)`);
if (candidates.files.length < 5000) console.log(`note: fewer than 5,000 files; pass --dir with a larger tree for the 5,000-file target`);
