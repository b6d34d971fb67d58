// Index speed of the Custodian: lists, reads and indexes a large tree of real source files, then
// times queries against the built index. A first run starts with an empty index cache (a SQLite file
// in a temporary folder); a second run finds every file's terms in the process's memo in front of it,
// as a later job in the same worker would, and a third reads them back from the store itself, as a
// later job in a new process would. The first and the third are then timed as two `magis locate --bm25-only` runs
// are, with the first query of each (which parses the files its names point to, or reads their definitions back).
//
//   npm run bench:index [-- --dir DIR] [--queries N]
//
// DIR defaults to this project's own node_modules (thousands of real .js/.ts files). The candidate
// listing leaves out nested node_modules and dist folders, as it would in a repository.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildQuery } from "../src/pipeline/locate/build-query.js";
import { indexRepository } from "../src/pipeline/locate/index-repository.js";
import { TermMemo } from "../src/pipeline/locate/remember-terms.js";
import { openSqliteStore } from "../src/backends/sqlite/sqlite-store.js";

const { values } = parseArgs({
  options: {
    dir: { type: "string", default: path.resolve(import.meta.dirname, "..", "node_modules") },
    queries: { type: "string", default: "20" },
  },
});

const issues = [
  { title: "Dataset.update evaluates chunked dask arrays", body: "`Dataset.update` turns a chunked `DataArray` into numpy; `Variable.chunk` is not called." },
  {
    title: "Please support header rows in RestructuredText output",
    body: "```\nTypeError: RST.__init__() got an unexpected keyword argument 'header_rows'\n```",
  },
  { title: "createLlm retries 429 responses forever", body: "The openai client ignores `maxRetries` when the server sends `retry-after`." },
  {
    title: "parseArgs crashes on --no-color",
    body: "```\nTypeError: Cannot read properties of undefined (reading 'type')\n    at parseArgs (lib/internal/util/parse_args.js:120:11)\n```",
  },
  {
    title: "zod discriminatedUnion loses error paths",
    body: "`z.discriminatedUnion('kind', [...]).safeParse(x)` reports the issue at the root instead of `kind`.",
  },
  { title: "vitest watch mode re-runs every file", body: "Changing one test file in watch mode reruns the whole suite; `--changed` is ignored." },
  {
    title: "Octokit paginate stops after first page",
    body: "`octokit.paginate(octokit.rest.issues.listComments, {...})` returns only 30 items; the Link header is ignored.",
  },
];

const store = fs.mkdtempSync(path.join(os.tmpdir(), "magis-bench-index-"));
const sqlite = openSqliteStore(path.join(store, "magis.db"));
await sqlite.migrate();
const terms = { cache: sqlite.memory.index, memo: new TermMemo() };
const list = { exclude: [], maxFileBytes: 512 * 1024 };
const started = performance.now();
const index = await indexRepository(values.dir, list, { terms });
const indexed = performance.now();
// The first query of a run parses the files its names point to: what one `magis locate --bm25-only` waits for.
const firstQuery = buildQuery({ ...issues[0]!, hints: [] });
await index.rank(firstQuery, 10);
const firstQueryMs = performance.now() - indexed;
const firstParsed = index.stats.parsed;
const candidates = index.candidates;
const megabytes = candidates.files.reduce((sum, f) => sum + f.bytes.length, 0) / 1e6;
const warmStart = performance.now();
const warm = await indexRepository(values.dir, list, { terms });
const warmMs = performance.now() - warmStart;
// The same file opened again, as another process would: no memo in front of it.
const reopened = openSqliteStore(path.join(store, "magis.db"));
const coldStart = performance.now();
const cold = await indexRepository(values.dir, list, { terms: { cache: reopened.memory.index, memo: new TermMemo() } });
const coldMs = performance.now() - coldStart;
await cold.rank(firstQuery, 10);
const coldQueryMs = performance.now() - coldStart - coldMs;
await reopened.close();

const count = Number(values.queries);
const latencies: number[] = [];
for (let i = 0; i < count; i++) {
  const issue = issues[i % issues.length]!;
  const t = performance.now();
  await index.rank(buildQuery({ ...issue, hints: [] }), 10);
  latencies.push(performance.now() - t);
}
latencies.sort((a, b) => a - b);
const total = indexed - started;

console.log(`tree:    ${values.dir}`);
console.log(`files:   ${candidates.files.length} candidates (${megabytes.toFixed(1)} MB of text); skipped ${JSON.stringify(candidates.skipped)}`);
console.log(
  `first:   ${total.toFixed(0)} ms = ${((candidates.files.length / total) * 1000).toFixed(0)} files/s, ${(total / megabytes).toFixed(0)} ms per MB (listing, reading, tokenizing every file, both BM25 indexes; cache empty)`,
);
console.log(`second:  ${warmMs.toFixed(0)} ms, ${warm.stats.tokenized} of ${warm.stats.files} files tokenized (the rest from this process's memo)`);
console.log(
  `new process: ${coldMs.toFixed(0)} ms, ${cold.stats.tokenized} of ${cold.stats.files} files tokenized (the rest read back from the store, ${((await terms.cache.bytes()) / 1e6).toFixed(1)} MB)`,
);
console.log(
  `query:   median ${latencies[Math.floor(latencies.length / 2)]!.toFixed(1)} ms, max ${latencies[latencies.length - 1]!.toFixed(1)} ms over ${count} queries (target: under 50 ms); the first of a run (${firstParsed} files parsed for definitions) ${firstQueryMs.toFixed(1)} ms`,
);
const firstLocate = total + firstQueryMs;
const secondLocate = coldMs + coldQueryMs;
console.log(
  `locate:  a second run in a new process (listing, index from the store, first query) ${secondLocate.toFixed(0)} ms = ${((secondLocate / firstLocate) * 100).toFixed(1)} % of the first's ${firstLocate.toFixed(0)} ms (goal: at most half)`,
);
console.log(
  `machine: ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")} (the machine is shared; figures vary with load)`,
);
await sqlite.close();
fs.rmSync(store, { recursive: true, force: true });
if (candidates.files.length < 5000) console.log(`note: fewer than 5,000 files; pass --dir with a larger tree for the 5,000-file target`);
