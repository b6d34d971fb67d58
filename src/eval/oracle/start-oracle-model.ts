import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { answerAsOracle } from "./answer-as-oracle.js";
import { answerAsReproducer, type OracleReproduction } from "./answer-reproducer.js";
import { placeGoldPatch, type PlacedGold } from "./place-gold-hunks.js";
import { readPromptVars } from "./read-prompt-vars.js";

/** The prompts whose answers say what to change in a file and where. */
const CHANGES = new Set(["manager-define-task", "developer-locate-lines", "developer-write-code"]);

/** A running oracle: an OpenAI-compatible server on 127.0.0.1 with one base URL per instance. */
export interface OracleModel {
  /**
   * Registers an instance's gold patch, its hunks placed on the base files in `checkout` as `git apply` places them
   * (and its tests, to reproduce it from); returns the base URL (with `/v1`) whose calls it answers.
   */
  add(instanceId: string, goldPatch: string, checkout: string, reproduction?: OracleReproduction): string;
  /** Calls the oracle could not answer (an unknown prompt, a message that is not of its template). */
  problems: string[];
  close(): Promise<void>;
}

/**
 * Starts the oracle model of `magis eval --oracle`: every chat completion under `/<instance_id>/v1/` is answered from
 * that instance's gold patch, reading the request as the project's own prompt files render it (the prompt's name in
 * the `X-Magis-Prompt` header, its variables read back from the user message).
 */
export async function startOracleModel(): Promise<OracleModel> {
  const golds = new Map<string, PlacedGold>();
  const reproductions = new Map<string, OracleReproduction>();
  const problems: string[] = [];
  let port = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const route = /^\/([^/]+)\/v1\/chat\/completions$/.exec(req.url ?? "");
    const gold = route ? golds.get(decodeURIComponent(route[1]!)) : undefined;
    if (req.method !== "POST" || !gold) return send(res, 404, { error: { message: `the oracle has no instance at ${req.method} ${req.url}` } });
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { model: string; messages: { role: string; content: string }[] };
    const prompt = String(req.headers["x-magis-prompt"] ?? "");
    const user = body.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
    try {
      const vars = readPromptVars(prompt, user);
      if (!vars) throw new Error(`the request is not of the template of prompt "${prompt}"`);
      const refused = gold.refused.get(vars.path ?? "");
      // A gold file the oracle cannot place is not changed anywhere else: the call fails, naming the hunk.
      if (refused && CHANGES.has(prompt)) throw new Error(refused);
      const content = JSON.stringify(
        answerAsReproducer(prompt, vars, reproductions.get(decodeURIComponent(route![1]!))) ?? answerAsOracle(prompt, vars, gold.files),
      );
      const promptTokens = Math.ceil(body.messages.reduce((n, m) => n + m.content.length, 0) / 4);
      const completionTokens = Math.ceil(content.length / 4);
      send(res, 200, {
        id: "chatcmpl-oracle",
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, logprobs: null, finish_reason: "stop" }],
        usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      });
    } catch (error) {
      const problem = `oracle (${route![1]}): ${error instanceof Error ? error.message : String(error)}`;
      problems.push(problem);
      send(res, 500, { error: { message: problem } }, { "x-should-retry": "false" });
    }
  };

  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  // The client keeps connections open between calls, which may be seconds apart (a reproduction runs between them); a
  // server that closed an idle one at Node's default 5 s could close it just as the next call went out on it, and the
  // oracle's calls are never retried.
  server.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  return {
    add(instanceId, goldPatch, checkout, reproduction) {
      golds.set(instanceId, placeGoldPatch(goldPatch, checkout));
      if (reproduction) reproductions.set(instanceId, reproduction);
      return `http://127.0.0.1:${port}/${encodeURIComponent(instanceId)}/v1`;
    },
    problems,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
