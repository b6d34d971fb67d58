// Time of what every issue goes through before the agents see it, cleanText then buildQuery, on
// adversarial bodies (bench/lib/adversarial-issues.ts) at growing sizes: linear code takes about four
// times as long for four times the text, quadratic code sixteen.
//
//   npm run bench:query [-- --sizes 10000,40000,100000]
import { parseArgs } from "node:util";
import { cleanText } from "../src/lib/clean-text.js";
import { buildQuery } from "../src/pipeline/locate/build-query.js";
import { adversarialBodies } from "./lib/adversarial-issues.js";

const { values } = parseArgs({ options: { sizes: { type: "string", default: "10000,40000,100000" } } });
const sizes = values.sizes.split(",").map(Number);
if (sizes.some((n) => !Number.isInteger(n) || n < 10)) {
  console.error("--sizes: expected comma-separated whole numbers of characters, each at least 10");
  process.exit(2);
}

const names = Object.keys(adversarialBodies(10));
console.log(["body".padEnd(36), ...sizes.map((n) => `${n} chars`.padStart(14))].join(""));
for (const name of names) {
  const cells = sizes.map((n) => {
    const body = adversarialBodies(n)[name]!;
    const started = performance.now();
    buildQuery({ title: "Crash when an attachment is pasted", body: cleanText(body), hints: [] });
    return `${(performance.now() - started).toFixed(1)} ms`.padStart(14);
  });
  console.log(name.padEnd(36) + cells.join(""));
}
