import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAction, bundleForNode, WORKER_ENTRIES } from "../../../scripts/lib/build-action.js";
import { countFile } from "../../../src/pipeline/locate/prepare-document.js";

let out: string;

beforeAll(async () => {
  out = fs.mkdtempSync(path.join(os.tmpdir(), "magis-count-terms-bundle-"));
  await buildAction(out);
}, 120_000);

afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

describe("the Action's bundle and the terms' worker", () => {
  it("holds the worker's entry beside index.js", () => {
    expect(Object.keys(WORKER_ENTRIES)).toEqual(["count-terms-worker.js"]);
    const worker = fs.readFileSync(path.join(out, "count-terms-worker.js"), "utf8");
    expect(worker).toContain("parentPort");
    // index.js starts the worker by the name beside it.
    expect(fs.readFileSync(path.join(out, "index.js"), "utf8")).toContain("count-terms-worker");
  });

  it("starts the worker from a bundled module beside it and counts what the main thread counts", async () => {
    const probe = path.join(out, "probe.js");
    await bundleForNode(path.join(import.meta.dirname, "count-terms-probe.ts"), probe);
    const printed = JSON.parse(execFileSync(process.execPath, [probe], { encoding: "utf8", timeout: 30_000 })) as {
      threaded: boolean;
      warnings: string[];
      defined: string[];
      counts: Array<[string, number]>;
    };
    const expected = countFile({ path: "shop/cart.py", text: "class Cart:\n    def total_price(self):\n        return 0\n" });
    expect(printed).toEqual({ threaded: true, warnings: [], defined: expected.defined, counts: [...expected.counts] });
    // A process that started the counter and counted nothing ends: an idle worker holds nobody.
    expect(JSON.parse(execFileSync(process.execPath, [probe, "idle"], { encoding: "utf8", timeout: 20_000 }))).toEqual({ threaded: true });
  });
});
