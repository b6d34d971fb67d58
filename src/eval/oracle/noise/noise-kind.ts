import type { Random } from "./seeded-random.js";

/** One answer of the oracle before it is sent: a JSON value, or the text of a text answer (a SEARCH/REPLACE block, a script). */
export interface OracleAnswer {
  prompt: string;
  value: unknown;
  /** The prompt's variables as read back from the request (the numbered file, the lines replaced). */
  vars: Record<string, string>;
}

/** What is sent in place of the clean answer: its text, and why the model stopped ("length": cut off at the token limit). */
export interface NoisyContent {
  content: string;
  finishReason: "stop" | "length";
}

/** One way real models get an answer wrong, as a deterministic transform of a clean answer. */
export interface NoiseKind {
  name: string;
  /**
   * How often it is drawn against the other kinds that fit an answer (1 when left out). Kinds that fit only a few of
   * the answers (line ranges, verdicts) weigh more, so that a run of the dev split draws them at all.
   */
  weight?: number;
  /** Whether this kind can change this answer (a range shift needs ranges, a dropped reason needs a verdict). */
  fits(answer: OracleAnswer): boolean;
  apply(answer: OracleAnswer, random: Random): NoisyContent;
}

/** The answer's text as the oracle sends it clean: a text answer as is, a JSON value serialized. */
export function serializeAnswer(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** A JSON answer's top-level object, or null for a text answer or anything else. */
export function objectOf(answer: OracleAnswer): Record<string, unknown> | null {
  const { value } = answer;
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** A kind that changes a JSON answer's object (a copy) and sends it serialized, unwrapped. */
export function changeObject(answer: OracleAnswer, change: (object: Record<string, unknown>) => void): NoisyContent {
  const copy = structuredClone(objectOf(answer)!);
  change(copy);
  return { content: JSON.stringify(copy), finishReason: "stop" };
}
