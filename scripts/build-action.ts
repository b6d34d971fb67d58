// `npm run build:action`: writes dist-action/, the GitHub Action that action.yml runs, from the sources. Commit it with
// the change that made it differ: CI rebuilds it and fails while the committed one is stale (.ci/run).
//
//   npm run build:action [-- --out DIR]
import path from "node:path";
import { parseArgs } from "node:util";
import { ACTION_DIR, buildAction } from "./lib/build-action.js";

const { values } = parseArgs({ options: { out: { type: "string", default: ACTION_DIR } } });
const out = path.resolve(values.out);
const built = await buildAction(out);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
console.log(
  `wrote ${path.relative(process.cwd(), out) || "."}/: index.js ${mb(built.bundleBytes)}, ${built.grammarCount} grammars and the runtime ${mb(built.grammarBytes)} (brotli), ${mb(built.totalBytes)} in all`,
);
