import type { z } from "zod";
import type { Agent } from "../config.js";

/** Tokens one call (or a sum of calls) used. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/**
 * An answer read from the model's text as it is, not from JSON (code, scripts): `read` takes the raw answer and says
 * precisely what is wrong with it when it does not fit; `asked` describes the format in one line, for the corrective
 * message.
 */
export interface TextAnswer<T> {
  read(raw: string): { ok: true; value: T } | { ok: false; problem: string };
  asked: string;
}

/** How an answer is read: JSON that fits a zod schema (sent as response_format), or text read by a TextAnswer. */
export type AnswerShape<T> = { schema: z.ZodType<T>; text?: never } | { text: TextAnswer<T>; schema?: never };

/** One agent step: which agent, which prompt file, its variables, and how its answer is read (a schema or a text reader). */
export type AskRequest<T> = AskStep & AnswerShape<T>;

/** What every agent step names, whatever the shape of its answer. */
export interface AskStep {
  agent: Agent;
  /** Name of a file in prompts/ without `.md`, e.g. `custodian-summarize-file`. */
  prompt: string;
  vars: Record<string, string | number>;
  /**
   * How many calls like this one the caller is about to make (candidate samples, this one first): the budget must hold
   * them all, or this one is refused before it is sent.
   */
  alike?: number;
  /**
   * How many answers to sample (candidate changes): asked in one request with the OpenAI API's `n`, the prompt paid
   * once; those the server does not return (many OpenAI-compatible servers ignore `n`) are asked one by one. Default 1.
   */
  samples?: number;
}

/** A validated answer and what it cost. */
export interface AskResult<T> {
  value: T;
  usage: Usage;
  /** With `samples` over 1: every answer, `value` first, and the requests they took (one when the server returned them all). */
  sampled?: { values: T[]; requests: number };
}

/** The model as every stage sees it: one call shape for every agent step. */
export interface Llm {
  ask<T>(request: AskRequest<T>): Promise<AskResult<T>>;
}

/** What every model call leaves behind; a job writes these as JSON Lines. */
export interface TraceRecord {
  agent: Agent;
  prompt: string;
  /** The first 12 hex digits of the SHA-256 of the prompt file as it was read: which version of the prompt asked. */
  promptHash: string;
  model: string;
  messages: { role: string; content: string }[];
  raw: string | null;
  parsed: unknown;
  usage: Usage;
  ms: number;
  /** Which of the request's answers this is, when it asked for several (`n`); the request's usage is on answer 0. */
  choice?: number;
  /** Set when the call failed; never contains a credential. */
  error?: string;
}
