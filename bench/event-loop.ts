// How long a locate blocks the event loop of the process that runs it, which in the embedded app is
// the one answering GitHub's webhooks: the Custodian's BM25 stage (list, read, index, rank) over a
// large tree, with the loop's delay sampled all along (perf_hooks.monitorEventLoopDelay).
//
//   npm run bench:event-loop [-- --dir DIR] [--issue-chars N]
//
// DIR defaults to this project's node_modules (thousands of real .js/.ts files), as in bench:index.
// --issue-chars pads the issue with a pasted log of that many characters (default 65,000, a full post).
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { parseConfig } from "../src/config.js";
import { locateFiles } from "../src/pipeline/index.js";
import type { StageContext } from "../src/pipeline/types.js";
import { base64Attachment } from "./lib/adversarial-issues.js";

const { values } = parseArgs({
  options: {
    dir: { type: "string", default: path.resolve(import.meta.dirname, "..", "node_modules") },
    "issue-chars": { type: "string", default: "65000" },
  },
});
const padding = Number(values["issue-chars"]);
if (!Number.isInteger(padding) || padding < 0) {
  console.error("--issue-chars: expected a whole number of characters");
  process.exit(2);
}

const ctx: StageContext = {
  root: values.dir,
  repoId: "bench",
  config: parseConfig({}),
  llm: { ask: () => Promise.reject(new Error("bench:event-loop ranks only; no model call is expected")) },
  now: Date.now,
  onProgress: () => {},
};
const issue = {
  title: "parseArgs crashes on --no-color",
  body: `\`\`\`\nTypeError: Cannot read properties of undefined (reading 'type')\n    at parseArgs (lib/internal/util/parse_args.js:120:11)\n\`\`\`\n\nThe log:\n\n${base64Attachment(padding)}`,
  hints: [],
};

const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
// A timer's lateness is what a webhook arriving at that moment would wait; the histogram samples it too.
let longestGap = 0;
let lastTick = performance.now();
const ticker = setInterval(() => {
  const now = performance.now();
  longestGap = Math.max(longestGap, now - lastTick);
  lastTick = now;
}, 1);
const started = performance.now();
const ranked = await locateFiles(ctx, issue, null, { bm25Only: true, top: 10 });
const ms = performance.now() - started;
await new Promise(setImmediate);
clearInterval(ticker);
delay.disable();

console.log(`tree:       ${values.dir}`);
console.log(`locate:     ${ms.toFixed(0)} ms (BM25 only, issue of ${issue.body.length} characters); best: ${ranked[0]?.path ?? "(none)"}`);
console.log(
  `loop delay: longest stall ${longestGap.toFixed(0)} ms between 1 ms timer ticks; monitorEventLoopDelay max ${(delay.max / 1e6).toFixed(0)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms`,
);
console.log(
  `machine:    ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")} (the machine is shared; figures vary with load)`,
);
