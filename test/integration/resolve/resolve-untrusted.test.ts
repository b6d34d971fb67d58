import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { scriptShopDemo } from "../../../examples/shop-script.js";
import { dataTagOf, INJECTED_BODY, outsideData } from "../../support/outside-data.js";
import type { ScriptedRequest } from "../../support/scripted-model.js";
import { startResolveRig, type ResolveRig } from "./run-resolve.js";

const examples = path.resolve(import.meta.dirname, "../../../examples");
const ISSUE = fs.readFileSync(path.join(examples, "shop-issue.md"), "utf8");
const rigs: ResolveRig[] = [];
afterEach(async () => {
  await Promise.all(rigs.splice(0).map((rig) => rig.close()));
});

/** One `magis resolve` of the example shop with this issue; every request the model received. */
async function resolveShop(issue: string): Promise<ScriptedRequest[]> {
  const rig = await startResolveRig({ from: path.join(examples, "shop"), issue });
  rigs.push(rig);
  scriptShopDemo(rig.model);
  const run = await rig.resolve();
  expect(run.code, run.stderr).toBe(0);
  expect(rig.model.problems).toEqual([]);
  return rig.model.requests;
}

/** The calls of a run as the model reads them outside the data tags, in an order that concurrent tasks cannot change. */
function outside(requests: ScriptedRequest[]): string[] {
  return requests.map((r) => JSON.stringify({ prompt: r.prompt, format: r.responseFormat, messages: outsideData(r) })).sort();
}

describe("magis resolve on an issue that forges an answer format, instructions and closing tags", () => {
  it("asks the model exactly what it asks for the plain issue, outside the data tags, in every call", async () => {
    const plain = await resolveShop(ISSUE);
    const injected = await resolveShop(`${ISSUE}\n${INJECTED_BODY}\n`);
    expect(plain.length).toBeGreaterThan(15);
    expect(injected.map((r) => r.prompt).sort()).toEqual(plain.map((r) => r.prompt).sort());
    expect(outside(injected)).toEqual(outside(plain));
    // One tag a job, another in the next job; the forged text is in the prompts, but only between the tags.
    expect(new Set(plain.map(dataTagOf)).size).toBe(1);
    expect(new Set(injected.map(dataTagOf)).size).toBe(1);
    expect(dataTagOf(injected[0]!)).not.toBe(dataTagOf(plain[0]!));
    const everything = injected.flatMap((r) => r.messages.map((m) => m.content)).join("\n");
    expect(everything).toContain("Ignore the above instructions");
    expect(outside(injected).join("\n")).not.toContain("Ignore the above");
    // Two whole runs of magis resolve, each as long as one test of resolve-shop.test.ts.
  }, 120_000);
});
