import { extraEdit, linesOff, newlineDropped, searchCommentChanged, searchUnindented } from "./change-edit.js";
import { fieldCase, fieldMissing, pathWrong, verdictWithoutReason } from "./change-fields.js";
import { serializeAnswer, type NoiseKind, type NoisyContent, type OracleAnswer } from "./noise-kind.js";
import { pickWeighted, seededRandom } from "./seeded-random.js";
import { cutOff, fenced, inProse, thinkBlock } from "./wrap-answer.js";

/** Every kind of noise, in the order docs/evaluation.md lists them. */
export const NOISE_KINDS: readonly NoiseKind[] = [
  fenced,
  inProse,
  thinkBlock,
  fieldCase,
  fieldMissing,
  linesOff,
  searchUnindented,
  searchCommentChanged,
  newlineDropped,
  cutOff,
  pathWrong,
  extraEdit,
  verdictWithoutReason,
];

/** How noisy the oracle is: the share of answers changed, in [0, 1], and the seed of the draws. */
export interface NoiseSettings {
  rate: number;
  seed: number;
}

/** An answer as sent, and the kind of noise applied to it (null: sent clean). */
export type NoisedAnswer = NoisyContent & { kind: string | null };

/**
 * The answer as a model that errs sends it: with probability `rate`, one kind of noise among those that fit the answer
 * (as often as its weight says), both drawn from the seed and `key` (what was asked), so a run with the same seed sends
 * the same answers.
 */
export function addNoise(answer: OracleAnswer, noise: NoiseSettings, key: string): NoisedAnswer {
  const clean: NoisedAnswer = { content: serializeAnswer(answer.value), finishReason: "stop", kind: null };
  const random = seededRandom(noise.seed, key);
  if (random() >= noise.rate) return clean;
  const fitting = NOISE_KINDS.filter((kind) => kind.fits(answer));
  if (fitting.length === 0) return clean;
  const kind = pickWeighted(random, fitting, (k) => k.weight ?? 1);
  return { ...kind.apply(answer, random), kind: kind.name };
}
