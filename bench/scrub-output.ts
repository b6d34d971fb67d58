// How long cleanOutput (every test run's and CI log's path to a prompt: control sequences, hidden text, secrets) takes
// on hostile program output, and the longest it holds the event loop meanwhile, sampled by a 1 ms timer as in
// bench:event-loop: the worker answering webhooks in the embedded app runs on that loop. Also checks that no planted
// secret is left in what comes out.
//
//   npm run bench:scrub [-- --size 1048576] [--only NAME] [--secretlint-alone]
//
// --secretlint-alone also times one secretlint pass over the whole text, outside cleanOutput, to show what secretlint
// itself costs on such input (its duplicate filter compares every hit with every later one).
import os from "node:os";
import { parseArgs } from "node:util";
import { lintSource } from "@secretlint/core";
import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import { cleanOutput } from "../src/lib/clean-text.js";
import { hostileOutputs } from "./lib/hostile-outputs.js";
import { printTable } from "./lib/print-table.js";

const { values } = parseArgs({
  options: {
    size: { type: "string", default: String(1024 * 1024) },
    only: { type: "string" },
    "secretlint-alone": { type: "boolean", default: false },
  },
});
const size = Number(values.size);
if (!Number.isInteger(size) || size < 1000) {
  console.error("--size: expected a whole number of characters, at least 1000");
  process.exit(2);
}

/** The time `run` takes and the longest gap between ticks of a 1 ms timer while it runs. */
async function timed(run: () => Promise<unknown>): Promise<{ ms: number; stall: number }> {
  let stall = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  const started = performance.now();
  await run();
  const ms = performance.now() - started;
  // The gap that ends when the run does is a stall too.
  stall = Math.max(stall, performance.now() - last);
  clearInterval(ticker);
  return { ms, stall };
}

// Loads the rules and warms the patterns, so the first shape does not pay for it.
await cleanOutput("warm-up ghp_abcdefghijklmnopqrstuvwxyz0123456789");

const rows = [["output", "chars", "cleanOutput", "longest stall", "secrets left", ...(values["secretlint-alone"] ? ["secretlint alone"] : [])]];
for (const [name, { text, planted }] of Object.entries(hostileOutputs(size))) {
  if (values.only && !name.includes(values.only)) continue;
  let out = "";
  const { ms, stall } = await timed(async () => {
    out = await cleanOutput(text);
  });
  const left = planted.reduce((sum, secret) => sum + out.split(secret).length - 1, 0);
  const row = [name, text.length.toLocaleString("en-US"), `${ms.toFixed(0)} ms`, `${stall.toFixed(0)} ms`, String(left)];
  if (values["secretlint-alone"]) {
    const alone = await timed(() =>
      lintSource({
        source: { content: text, filePath: "/output.txt", ext: ".txt", contentType: "text" },
        options: { config: { rules: [{ id: recommended.meta.id, rule: recommended }] } },
      }),
    );
    row.push(`${alone.ms.toFixed(0)} ms`);
  }
  rows.push(row);
}
printTable(rows);
console.log(
  `machine: ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")} (the machine is shared; times vary with load)`,
);
