import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { wrapData } from "../../../src/llm/mark-data.js";
import { loadPrompt } from "../../../src/llm/prompts.js";
import { startOracleModel, type OracleCall, type OracleModel } from "../../../src/eval/oracle/start-oracle-model.js";

// The user message of custodian-summarize-file filled in by hand, as the renderer fills it (the oracle reads it back);
// `tag` wraps the file's content as the job's data tag does.
const userWith = (tag?: string): string =>
  loadPrompt("custodian-summarize-file").user.replace(
    /\{\{\s*(\w+)\s*\}\}/g,
    (_, name: string) => ({ path: "a.py", view: "whole", content: tag ? wrapData("x = 1\n", tag) : "x = 1\n" })[name]!,
  );
const USER = userWith();
const CLEAN = JSON.stringify({ summary: "The file a.py." });

let checkout: string;
const oracles: OracleModel[] = [];
beforeEach(() => {
  checkout = fs.mkdtempSync(path.join(os.tmpdir(), "magis-noisy-oracle-"));
});
afterEach(async () => {
  await Promise.all(oracles.splice(0).map((oracle) => oracle.close()));
  fs.rmSync(checkout, { recursive: true, force: true });
});

async function start(seed: number, calls: OracleCall[]): Promise<string> {
  const oracle = await startOracleModel({ noise: { rate: 1, seed }, onCall: (call) => calls.push(call) });
  oracles.push(oracle);
  return oracle.add("acme__a-1", "", checkout);
}

async function ask(base: string, messages: { role: string; content: string }[]): Promise<{ content: string; finish: string }> {
  const response = await fetch(`${base}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-magis-prompt": "custodian-summarize-file" },
    body: JSON.stringify({ model: "oracle", messages }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { choices: { message: { content: string }; finish_reason: string }[] };
  return { content: body.choices[0]!.message.content, finish: body.choices[0]!.finish_reason };
}

describe("the oracle with --noise", () => {
  it("sends noisy answers, the same for the same seed, records their kind, and answers a corrective retry clean", async () => {
    const calls: OracleCall[] = [];
    const base = await start(5, calls);
    const first = [
      { role: "system", content: "You are the Repository Custodian." },
      { role: "user", content: USER },
    ];
    const noisy = await ask(base, first);
    expect(noisy.content).not.toBe(CLEAN);
    expect(calls).toEqual([{ instance: "acme__a-1", prompt: "custodian-summarize-file", noise: expect.any(String), retry: false }]);
    expect(noisy.finish).toBe(calls[0]!.noise === "cut-off" ? "length" : "stop");
    // The retry ends with the correction; the prompt's variables are in the first user message.
    const retry = await ask(base, [
      ...first,
      { role: "assistant", content: noisy.content },
      { role: "user", content: "Your previous answer could not be used." },
    ]);
    expect(retry).toEqual({ content: CLEAN, finish: "stop" });
    expect(calls[1]).toEqual({ instance: "acme__a-1", prompt: "custodian-summarize-file", noise: null, retry: true });
    // Another oracle with the same seed sends the same noise for the same call.
    const again: OracleCall[] = [];
    expect(await ask(await start(5, again), first)).toEqual(noisy);
    expect(again[0]!.noise).toBe(calls[0]!.noise);
    // Another job's data tags leave the noise as it is: the n-th call of the same question draws the same.
    const [plain, tagged] = [await start(5, []), await start(5, [])];
    const inTags = (tag: string) => [first[0]!, { role: "user", content: userWith(tag) }];
    expect(await ask(tagged, inTags("3f9a1c07"))).toEqual(noisy);
    await ask(plain, first);
    expect(await ask(tagged, inTags("b2e4d6f8"))).toEqual(await ask(plain, first));
    // The same request asked a second time draws again (a sample asked one by one is a call of its own).
    const kinds = new Set([calls[0]!.noise]);
    for (let i = 0; i < 12; i++) await ask(base, first);
    for (const call of calls.slice(2)) kinds.add(call.noise);
    expect(kinds.size).toBeGreaterThan(1);
  });
});
