import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the scripted model received, as tests inspect it. */
export interface ScriptedRequest {
  /** The `X-Magis-Prompt` header (the prompt file name), or null when the request had none. */
  prompt: string | null;
  /** The `X-Magis-Agent` header, or null. */
  agent: string | null;
  model: string;
  messages: { role: string; content: string }[];
  /** Whether the request asked for structured output (`response_format`). */
  hasResponseFormat: boolean;
  responseFormat: unknown;
  /** `max_completion_tokens` or `max_tokens`, whichever was sent. */
  maxTokens: number | null;
  /** The whole parsed request body. */
  body: Record<string, unknown>;
  /** Request headers, lower-case, without `authorization`. */
  headers: Record<string, string>;
}

/** Options of a content answer: token usage to report (default chars/4) and the finish reason (default "stop"). */
export interface ContentOptions {
  usage?: { promptTokens: number; completionTokens: number };
  finishReason?: "stop" | "length" | "content_filter";
}

type Reply =
  | { kind: "json"; value: unknown; options: ContentOptions }
  | { kind: "text"; text: string; options: ContentOptions }
  | { kind: "status"; status: number; body: unknown; headers: Record<string, string> }
  | { kind: "delay"; ms: number; then: ScriptedAnswer }
  | { kind: "hang" }
  | { kind: "malformed"; body: string };

const REPLY = Symbol("scripted-reply");
type TaggedReply = Reply & { [REPLY]: true };

/**
 * What the model answers to one request. Any plain value is a JSON answer (sent as the message
 * content); use `reply.*` for the other kinds, or a function of the request.
 */
export type ScriptedAnswer = unknown;
/** A function answer: computes the answer from the request; it stays in the queue and answers every later call. */
export type AnswerFunction = (request: ScriptedRequest) => ScriptedAnswer | Promise<ScriptedAnswer>;

const tag = (reply: Reply): TaggedReply => ({ ...reply, [REPLY]: true });

/** Builders for the answers that are not a plain JSON value. */
export const reply = {
  /** A JSON value as the message content (same as passing the value itself, but allows options). */
  json: (value: unknown, options: ContentOptions = {}) => tag({ kind: "json", value, options }),
  /** Raw message content, sent as is (prose, broken JSON, …). */
  text: (text: string, options: ContentOptions = {}) => tag({ kind: "text", text, options }),
  /** An HTTP error. `retryAfter` (seconds) sets the `retry-after` header, as rate limiters do. */
  status: (status: number, body: unknown = { error: { message: `scripted ${status}` } }, headers: Record<string, string> = {}) =>
    tag({ kind: "status", status, body, headers }),
  /** A 429 with `retry-after` in seconds (the SDK waits that long before its retry). */
  rateLimited: (retryAfterSeconds = 0) =>
    tag({
      kind: "status",
      status: 429,
      body: { error: { message: "Rate limit reached", type: "rate_limit_exceeded" } },
      headers: { "retry-after": String(retryAfterSeconds) },
    }),
  /** Waits `ms` milliseconds, then answers `then`. */
  delay: (ms: number, then: ScriptedAnswer) => tag({ kind: "delay", ms, then }),
  /** Never answers; the request stays open until the client gives up or `close()` is called. */
  hang: () => tag({ kind: "hang" }),
  /** A 200 whose body is not JSON. */
  malformed: (body = "<html>502 Bad Gateway</html>") => tag({ kind: "malformed", body }),
};

/** Options of the scripted model. */
export interface ScriptedModelOptions {
  /** Answer with clean JSON content (default). When false, JSON answers come wrapped in prose and a ```json fence, as many local servers do. */
  honourJsonSchema?: boolean;
  /** Reject every request that carries `response_format` with a 400, as some servers do. */
  rejectResponseFormat?: boolean;
  /** Added before every answer, e.g. for concurrency benchmarks. */
  latencyMs?: number;
  /** Answers prompts that have no scripted answer left; without it such a request is a loud error. */
  fallback?: AnswerFunction;
  /** Answer one choice whatever `n` asks for, as many OpenAI-compatible servers do; by default `n` answers come in one response. */
  ignoreN?: boolean;
}

/** A running scripted model. */
export interface ScriptedModel {
  /** Base URL including `/v1`; pass as `OPENAI_BASE_URL` / `baseURL`. */
  url: string;
  /** Every request received, in arrival order. */
  requests: ScriptedRequest[];
  /** Problems the server met (unscripted prompts, throwing answer functions); a clean test leaves this empty. */
  problems: string[];
  /** Answers every call of a prompt (after any answers queued before it) with a function of the request. */
  script(prompt: string, answer: AnswerFunction): ScriptedModel;
  /** Queues answers for a prompt name, consumed in order. */
  script(prompt: string, ...answers: ScriptedAnswer[]): ScriptedModel;
  /** Answers still queued, per prompt name (function answers count as one). */
  pending(): Record<string, number>;
  /** Stops the server and ends hung requests. */
  close(): Promise<void>;
}

/** Starts an OpenAI-compatible chat-completions server on 127.0.0.1 that answers from a script. */
export async function startScriptedModel(options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const queues = new Map<string, ScriptedAnswer[]>();
  const requests: ScriptedRequest[] = [];
  const problems: string[] = [];
  const open = new Set<ServerResponse>();
  let completionCount = 0;

  const nextAnswer = async (request: ScriptedRequest): Promise<ScriptedAnswer> => {
    const name = request.prompt ?? "(no X-Magis-Prompt header)";
    const queue = queues.get(name) ?? [];
    const head = queue[0];
    if (typeof head === "function") return (head as AnswerFunction)(request);
    if (queue.length > 0) return queue.shift();
    if (options.fallback) return options.fallback(request);
    const scripted = requests.filter((r) => r.prompt === request.prompt).length - 1;
    const problem = `scripted model: no answer left for prompt "${name}" (call ${scripted + 1}; ${scripted} answered)`;
    problems.push(problem);
    return tag({ kind: "status", status: 500, body: { error: { message: problem } }, headers: { "x-should-retry": "false" } });
  };

  /** Sends the answers as one response's choices (as `n` asks); a reply that is not content (an error, a hang) is the whole response. */
  const send = async (res: ServerResponse, request: ScriptedRequest, answers: ScriptedAnswer[]): Promise<void> => {
    const contents: Content[] = [];
    for (const answer of answers) {
      let r = toReply(answer);
      while (r.kind === "delay") {
        await sleep(r.ms);
        r = toReply(r.then);
      }
      if (r.kind === "hang") return;
      if (r.kind === "malformed") return end(res, 200, r.body, { "content-type": "application/json" });
      if (r.kind === "status") return end(res, r.status, JSON.stringify(r.body), { "content-type": "application/json", ...r.headers });
      contents.push({ content: r.kind === "text" ? r.text : renderJson(r.value, options.honourJsonSchema ?? true), options: r.options });
    }
    completionCount += 1;
    end(res, 200, JSON.stringify(completion(request, contents, completionCount)), { "content-type": "application/json" });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    open.add(res);
    res.on("close", () => open.delete(res));
    const raw = await readBody(req);
    if (req.method === "GET" && req.url === "/v1/models") {
      return end(res, 200, JSON.stringify({ object: "list", data: [{ id: "scripted", object: "model" }] }), {});
    }
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      return end(res, 404, JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }), {});
    }
    const request = toRequest(req, raw);
    requests.push(request);
    if (options.latencyMs) await sleep(options.latencyMs);
    if (options.rejectResponseFormat && request.hasResponseFormat) {
      return send(res, request, [
        reply.status(400, { error: { message: "Unsupported parameter: 'response_format'", type: "invalid_request_error", param: "response_format" } }),
      ]);
    }
    try {
      // A real server's `n`: that many answers from the script (each taken as a call of its own would take it), in one response.
      const asked = typeof request.body.n === "number" && !options.ignoreN ? Math.max(1, request.body.n) : 1;
      // An error or a hang refuses the whole request, as it would on a real server: only it is taken from the script.
      const answers: ScriptedAnswer[] = [await nextAnswer(request)];
      const refused = ["status", "hang", "malformed"].includes(toReply(answers[0]).kind);
      while (!refused && answers.length < asked) answers.push(await nextAnswer(request));
      await send(res, request, answers);
    } catch (error) {
      const problem = `scripted model: answer for "${request.prompt}" threw: ${error instanceof Error ? error.message : String(error)}`;
      problems.push(problem);
      end(res, 500, JSON.stringify({ error: { message: problem } }), { "x-should-retry": "false" });
    }
  };

  // A client that drops the connection mid-request only ends that request, never the test run.
  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const model: ScriptedModel = {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    problems,
    script(prompt: string, ...answers: ScriptedAnswer[]) {
      queues.set(prompt, [...(queues.get(prompt) ?? []), ...answers]);
      return model;
    },
    pending() {
      return Object.fromEntries([...queues].filter(([, q]) => q.length > 0).map(([name, q]) => [name, q.length]));
    },
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return model;
}

function toReply(answer: ScriptedAnswer): Reply {
  if (answer !== null && typeof answer === "object" && REPLY in answer) return answer as TaggedReply;
  return { kind: "json", value: answer, options: {} };
}

function renderJson(value: unknown, honourJsonSchema: boolean): string {
  const json = JSON.stringify(value);
  if (honourJsonSchema) return json;
  return `Sure! Here is the answer you asked for:\n\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\`\n\nLet me know if you need anything else.`;
}

/** One choice's text and its options. */
type Content = { content: string; options: ContentOptions };

/** The response of a request: one choice per content, the prompt counted once (as OpenAI counts `n`), the completions summed. */
function completion(request: ScriptedRequest, contents: Content[], n: number) {
  const promptChars = request.messages.reduce((sum, m) => sum + m.content.length, 0);
  const promptTokens = contents[0]?.options.usage?.promptTokens ?? Math.ceil(promptChars / 4);
  const completionTokens = contents.reduce((sum, c) => sum + (c.options.usage?.completionTokens ?? Math.ceil(c.content.length / 4)), 0);
  return {
    id: `chatcmpl-scripted-${n}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: contents.map(({ content, options }, index) => ({
      index,
      message: { role: "assistant", content, refusal: null },
      logprobs: null,
      finish_reason: options.finishReason ?? "stop",
    })),
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

function toRequest(req: IncomingMessage, raw: string): ScriptedRequest {
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    // A body that is not JSON is recorded as empty; the test sees it in `requests`.
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name !== "authorization" && value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  const messages = Array.isArray(body.messages) ? (body.messages as { role: string; content: unknown }[]) : [];
  return {
    prompt: headers["x-magis-prompt"] ?? null,
    agent: headers["x-magis-agent"] ?? null,
    model: typeof body.model === "string" ? body.model : "",
    messages: messages.map((m) => ({ role: m.role, content: typeof m.content === "string" ? m.content : JSON.stringify(m.content) })),
    hasResponseFormat: body.response_format !== undefined,
    responseFormat: body.response_format,
    maxTokens: [body.max_completion_tokens, body.max_tokens].find((n): n is number => typeof n === "number") ?? null,
    body,
    headers,
  };
}

function end(res: ServerResponse, status: number, body: string, headers: Record<string, string>): void {
  if (res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
