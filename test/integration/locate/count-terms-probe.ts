// Bundled by count-terms-bundle.test.ts beside the Action's built worker, as index.js is: counts one file's terms and
// prints whether a worker thread counted them, and what they were. With `idle`, it starts the counter and ends there,
// counting nothing: the process must end all the same.
import { startTermCounter } from "../../../src/pipeline/locate/count-terms.js";

const warnings: string[] = [];
const counter = startTermCounter({ warn: (line) => warnings.push(line) });
if (process.argv[2] === "idle") {
  console.log(JSON.stringify({ threaded: counter.threaded }));
} else await count();

async function count(): Promise<void> {
  const [terms] = await counter.count([{ path: "shop/cart.py", text: "class Cart:\n    def total_price(self):\n        return 0\n" }]);
  console.log(JSON.stringify({ threaded: counter.threaded, warnings, defined: terms!.defined, counts: [...terms!.counts] }));
  await counter.close();
}
