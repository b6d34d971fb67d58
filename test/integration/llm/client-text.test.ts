import { afterEach, describe, expect, it } from "vitest";
import type { TextAnswer } from "../../../src/llm/types.js";
import { reply, startScriptedModel, type ScriptedModel } from "../../support/scripted-model.js";
import { modelSettings } from "../../support/model-settings.js";
import { clientFor } from "./client-setup.js";

/** The reader of the fixture prompt write-verdict: prose, then one `verdict:` line. */
const verdict: TextAnswer<"relevant" | "unrelated"> = {
  asked: "your reasoning as prose, then one line `verdict: relevant` or `verdict: unrelated`.",
  read(raw) {
    const lines = [...raw.matchAll(/^verdict: *(.*)$/gm)].map((match) => match[1]!.trim());
    if (lines.length !== 1) return { ok: false, problem: `the answer has ${lines.length} \`verdict:\` lines; expected exactly one` };
    const [word] = lines;
    if (word !== "relevant" && word !== "unrelated") return { ok: false, problem: `the verdict is "${word}"; expected relevant or unrelated` };
    return { ok: true, value: word };
  },
};
const verdictRequest = { agent: "custodian" as const, prompt: "write-verdict", vars: { path: "src/date.ts" }, text: verdict };
const answered = (word: string, completionTokens = 10) =>
  reply.text(`It parses the dates.\nverdict: ${word}\n`, { usage: { promptTokens: 50, completionTokens } });

describe("text answers (a reader instead of a schema)", () => {
  let model: ScriptedModel;
  afterEach(async () => {
    expect(model.problems).toEqual([]);
    await model.close();
  });

  it("asks without response_format or JSON instruction and hands the raw answer to the reader; the trace keeps both", async () => {
    model = await startScriptedModel();
    model.script("write-verdict", answered("relevant"));
    const llm = clientFor(model);
    const result = await llm.ask(verdictRequest);
    expect(result).toEqual({ value: "relevant", usage: { promptTokens: 50, completionTokens: 10, totalTokens: 60 } });
    const [request] = model.requests;
    expect(request?.hasResponseFormat).toBe(false);
    expect(request?.messages.map((m) => m.content).join("\n")).not.toMatch(/JSON/);
    expect(llm.trace).toEqual([expect.objectContaining({ prompt: "write-verdict", raw: "It parses the dates.\nverdict: relevant\n", parsed: "relevant" })]);
    expect(llm.trace[0]?.error).toBeUndefined();
    expect(llm.stats()).toMatchObject({ calls: 1, totalTokens: 60 });
  });

  it("sends no JSON instruction in plain JSON mode either", async () => {
    model = await startScriptedModel();
    model.script("write-verdict", answered("unrelated"));
    const llm = clientFor(model, { settings: modelSettings({ MAGIS_STRUCTURED_OUTPUT: "json" }) });
    expect((await llm.ask(verdictRequest)).value).toBe("unrelated");
    expect(model.requests[0]?.messages[1]?.content).toBe(
      "File `src/date.ts`.\n\n## Answer format\nYour reasoning as prose, then one line `verdict: relevant` or `verdict: unrelated`.",
    );
  });

  it("corrects a bad answer once, saying what was wrong and which format is asked (never JSON)", async () => {
    model = await startScriptedModel();
    model.script("write-verdict", reply.text("It parses the dates.\nverdict: maybe"), answered("relevant"));
    const llm = clientFor(model);
    const result = await llm.ask(verdictRequest);
    expect(result.value).toBe("relevant");
    expect(result.usage.totalTokens).toBe(llm.stats().totalTokens);
    const retry = model.requests[1]!;
    expect(retry.hasResponseFormat).toBe(false);
    expect(retry.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(retry.messages[2]?.content).toBe("It parses the dates.\nverdict: maybe");
    expect(retry.messages[3]?.content).toBe(
      'Your previous answer could not be used: the verdict is "maybe"; expected relevant or unrelated\n\n' +
        "Answer again in the format asked: your reasoning as prose, then one line `verdict: relevant` or `verdict: unrelated`.",
    );
    expect(llm.trace.map((t) => [t.parsed, t.error])).toEqual([
      [null, 'the verdict is "maybe"; expected relevant or unrelated'],
      ["relevant", undefined],
    ]);
  });

  it("refuses the step when the corrected answer does not fit either, naming the last problem", async () => {
    model = await startScriptedModel();
    model.script("write-verdict", reply.text("no idea"), reply.text("verdict: relevant\nverdict: unrelated", { finishReason: "length" }));
    const llm = clientFor(model);
    const failure = llm.ask(verdictRequest);
    await expect(failure).rejects.toMatchObject({ name: "LlmError", kind: "invalid-answer", prompt: "write-verdict" });
    await expect(failure).rejects.toThrow(
      /did not fit the expected format, twice .*last problem: the answer has 2 `verdict:` lines; expected exactly one \(the answer was cut off at max_tokens/,
    );
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]?.messages[3]?.content).toContain("the answer has 0 `verdict:` lines; expected exactly one");
  });

  it("samples text answers with n, and corrects only the sample that does not fit", async () => {
    model = await startScriptedModel();
    model.script("write-verdict", answered("relevant"), reply.text("verdict:"), answered("unrelated"), answered("unrelated", 5));
    const llm = clientFor(model);
    const result = await llm.ask({ ...verdictRequest, samples: 3 });
    expect(result.sampled).toEqual({ values: ["relevant", "unrelated", "unrelated"], requests: 1 });
    expect(model.requests.map((r) => [r.body.n, r.hasResponseFormat])).toEqual([
      [3, false],
      [undefined, false],
    ]);
    // The refused sample is corrected before the next sample is read.
    expect(llm.trace.map((t) => t.choice)).toEqual([0, 1, undefined, 2]);
    expect(result.usage.totalTokens).toBe(llm.stats().totalTokens);
  });

  it("keeps a server's refusal of a text request from switching the job to plain JSON mode", async () => {
    model = await startScriptedModel();
    model.script("write-verdict", reply.status(400, { error: { message: "context length exceeded" } }));
    const llm = clientFor(model);
    await expect(llm.ask(verdictRequest)).rejects.toThrow(/answered 400 after 1 try \(server said: context length exceeded\)/);
    expect(model.requests).toHaveLength(1);
    expect(llm.structuredOutput).toBe("json_schema");
  });
});
