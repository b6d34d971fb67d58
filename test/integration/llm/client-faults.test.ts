import { afterEach, describe, expect, it } from "vitest";
import { LlmError } from "../../../src/llm/errors.js";
import { reply, startScriptedModel, type ScriptedModel } from "../../support/scripted-model.js";
import { clientFor, judgeRequest, SECRET_KEY } from "./client-setup.js";
import { modelSettings } from "../../support/model-settings.js";

// HTTP faults are retried by the openai SDK itself; these tests count the requests the server saw.
describe("transient faults over HTTP", () => {
  let model: ScriptedModel;
  afterEach(() => model.close());

  it("succeeds after a 429 followed by a 200", async () => {
    model = await startScriptedModel();
    model.script("judge-file", reply.rateLimited(0), { relevant: true, reason: "ok" });
    const llm = clientFor(model);
    expect((await llm.ask(judgeRequest)).value).toEqual({ relevant: true, reason: "ok" });
    expect(model.requests).toHaveLength(2);
    expect(llm.trace).toHaveLength(1);
  });

  it("gives up on 500 forever after the bounded number of tries, naming agent and prompt", async () => {
    model = await startScriptedModel();
    model.script("judge-file", () => reply.status(500, { error: { message: "upstream exploded" } }));
    const llm = clientFor(model);
    const failure = await llm.ask(judgeRequest).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(LlmError);
    expect(failure).toMatchObject({ kind: "http", agent: "custodian", prompt: "judge-file", model: "scripted-model" });
    expect((failure as Error).message).toMatch(
      /custodian call with prompt "judge-file".*server answered 500 after 3 tries \(server said: upstream exploded\)\. .*retry later/,
    );
    expect(model.requests).toHaveLength(3);
    expect(llm.trace).toHaveLength(1);
    expect(llm.trace[0]?.error).toContain("500 after 3 tries");
  });

  it("honours MAGIS_LLM_MAX_RETRIES", async () => {
    model = await startScriptedModel();
    model.script("judge-file", () => reply.status(503));
    const llm = clientFor(model, { settings: modelSettings({ MAGIS_LLM_MAX_RETRIES: "0" }) });
    await expect(llm.ask(judgeRequest)).rejects.toThrow(/answered 503 after 1 try/);
    expect(model.requests).toHaveLength(1);
  });

  it("times out on a server that never answers", async () => {
    model = await startScriptedModel();
    model.script("judge-file", () => reply.hang());
    const llm = clientFor(model, { settings: modelSettings({ MAGIS_LLM_TIMEOUT_MS: "300", MAGIS_LLM_MAX_RETRIES: "1" }) });
    const failure = llm.ask(judgeRequest);
    await expect(failure).rejects.toMatchObject({ kind: "timeout" });
    await expect(failure).rejects.toThrow(/no answer within 300 ms \(2 tries\)\. .*MAGIS_LLM_TIMEOUT_MS/);
    expect(model.requests).toHaveLength(2);
  });

  it("reports a malformed body and an unreachable server as clear errors", async () => {
    model = await startScriptedModel();
    model.script("judge-file", () => reply.malformed());
    await expect(clientFor(model, { maxRetries: 0 }).ask(judgeRequest)).rejects.toMatchObject({ name: "LlmError", agent: "custodian", prompt: "judge-file" });
    const closed = await startScriptedModel();
    await closed.close();
    const unreachable = clientFor(closed, { maxRetries: 0 }).ask(judgeRequest);
    await expect(unreachable).rejects.toMatchObject({ kind: "connection" });
    await expect(unreachable).rejects.toThrow(new RegExp(`could not reach ${closed.url.replace(/[.:/]/g, "\\$&")}.*Check OPENAI_BASE_URL`));
    // A base URL with credentials in it: the error names the server, never the credential.
    const withPassword = closed.url.replace("http://", "http://magis:hunter2pass@");
    const refused = await clientFor(closed, { baseURL: withPassword, maxRetries: 0 })
      .ask(judgeRequest)
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(refused).toMatchObject({ kind: "connection" });
    expect(String((refused as Error).message)).not.toContain("hunter2pass");
  });

  it("never puts the API key in an error, even when the server echoes it", async () => {
    model = await startScriptedModel();
    model.script("judge-file", reply.status(401, { error: { message: `Incorrect API key provided: ${SECRET_KEY}` } }));
    const llm = clientFor(model);
    const failure = await llm.ask(judgeRequest).then(
      () => null,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toMatch(/answered 401 after 1 try .*\[redacted\].*Check OPENAI_API_KEY/);
    expect(failure?.message).not.toContain(SECRET_KEY);
    expect(JSON.stringify(llm.trace)).not.toContain(SECRET_KEY);
    expect(model.requests[0]?.headers.authorization).toBeUndefined();
  });
});
