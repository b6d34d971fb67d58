import type { z } from "zod";
import { checkAnswer, correctionMessage } from "./check-answer.js";
import type { AnswerShape } from "./types.js";

/** One raw answer read: its value, or what is wrong with it in words the model can act on (and what could be read of it). */
export type ReadAnswer<T> = { ok: true; value: T } | { ok: false; problem: string; parsed: unknown };

/** How a request's answers are read and corrected: JSON against a schema (sent to the server), or text by its reader. */
export interface AnswerReader<T> {
  /** The schema sent as response_format (or as the JSON-mode instruction); none for a text answer. */
  schema?: z.ZodType<T>;
  read(raw: string): ReadAnswer<T>;
  /** The message that sends a refused answer back to the model for its one retry. */
  correction(problem: string): string;
}

/** The reader of a request's answers, from its schema or its text reader. */
export function answerReaderFor<T>(shape: AnswerShape<T>): AnswerReader<T> {
  if (shape.text) {
    const { text } = shape;
    return {
      read(raw) {
        const read = text.read(raw);
        return read.ok ? read : { ok: false, problem: read.problem, parsed: null };
      },
      correction: (problem) => textCorrectionMessage(problem, text.asked),
    };
  }
  const { schema } = shape;
  return {
    schema,
    read(raw) {
      const checked = checkAnswer(raw, schema);
      return checked.ok ? checked : { ok: false, problem: checked.error, parsed: checked.parsed };
    },
    correction: correctionMessage,
  };
}

/** The corrective message of a text answer: what was wrong, and the format asked, never JSON. */
export function textCorrectionMessage(problem: string, asked: string): string {
  return `Your previous answer could not be used: ${problem}\n\nAnswer again in the format asked: ${asked}`;
}
