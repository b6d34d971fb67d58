import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { answerCall } from "./answer-call.js";
import type { OracleReproduction } from "./answer-reproducer.js";
import { placeGoldPatch, type PlacedGold } from "./place-gold-hunks.js";
import { readPromptVars } from "./read-prompt-vars.js";
import { addNoise, type NoiseSettings } from "./noise/add-noise.js";

/** The prompts whose answers say what to change in a file and where. */
const CHANGES = new Set(["manager-define-task", "manager-define-task-and-way", "developer-locate-lines", "developer-write-code"]);

/** One call the oracle answered: which kind of noise it sent (null: clean), and whether it was a corrective retry. */
export interface OracleCall {
  instance: string;
  prompt: string;
  noise: string | null;
  retry: boolean;
}

/** How the oracle answers: clean, or with noise (`magis eval --oracle --noise P --seed S`); each answered call reported. */
export interface OracleOptions {
  noise?: NoiseSettings;
  onCall?: (call: OracleCall) => void;
}

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
 * the `X-Magis-Prompt` header, its variables read back from the first user message). With `noise`, answers are sent
 * the way real models err (src/eval/oracle/noise/); a corrective retry (a conversation that holds the refused answer) is
 * answered clean, as a model that heeds the correction does, so what noise costs is the retry and what the pipeline
 * could not absorb.
 */
export async function startOracleModel(options: OracleOptions = {}): Promise<OracleModel> {
  const golds = new Map<string, PlacedGold>();
  const asked = new Map<string, number>();
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
    // A corrective retry ends with the correction: the prompt's own message is the first user message.
    const user = body.messages.find((m) => m.role === "user")?.content ?? "";
    const retry = body.messages.some((m) => m.role === "assistant");
    const instance = decodeURIComponent(route![1]!);
    try {
      const vars = readPromptVars(prompt, user);
      if (!vars) throw new Error(`the request is not of the template of prompt "${prompt}"`);
      const refused = gold.refused.get(vars.path ?? "");
      // A gold file the oracle cannot place is not changed anywhere else: the call fails, naming the hunk.
      if (refused && CHANGES.has(prompt)) throw new Error(refused);
      const answer = answerCall(prompt, vars, gold.files, reproductions.get(instance));
      // What was asked, by prompt, file and lines only: the message itself differs between runs of the same instance
      // (its per-job data tags, a sandbox's timings and folders), these do not (no data tag wraps path, start or end),
      // so the same seed sends the same noise, and the n-th time the same is asked draws its own.
      const key = [instance, prompt, vars.path ?? "", vars.start ?? "", vars.end ?? ""].join("\n");
      asked.set(key, (asked.get(key) ?? 0) + 1);
      const noise = options.noise && !retry ? options.noise : { rate: 0, seed: 0 };
      const { content, finishReason, kind } = addNoise({ prompt, value: answer, vars }, noise, `${key}\n${asked.get(key)}`);
      options.onCall?.({ instance, prompt, noise: kind, retry });
      const promptTokens = Math.ceil(body.messages.reduce((n, m) => n + m.content.length, 0) / 4);
      const completionTokens = Math.ceil(content.length / 4);
      send(res, 200, {
        id: "chatcmpl-oracle",
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, logprobs: null, finish_reason: finishReason }],
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
