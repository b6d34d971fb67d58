import { UsageError } from "../lib/usage-error.js";
import type { NoiseSettings } from "../eval/oracle/noise/add-noise.js";
import { wholeNumberFlag } from "./io.js";

const RATE = /^(?:0|1|0?\.\d+|1\.0*|0\.)$/;

/**
 * `--noise P --seed S` of `magis eval`: the share of the oracle's answers sent with noise, in [0, 1], and the seed of its
 * draws (default 1); undefined without --noise. Both only with --oracle: a real model's noise is its own.
 */
export function readNoiseFlags(flags: { noise?: string | undefined; seed?: string | undefined; oracle?: boolean | undefined }): NoiseSettings | undefined {
  const { noise, seed, oracle } = flags;
  if (noise === undefined) {
    if (seed !== undefined) throw new UsageError("--seed seeds the oracle's noise: give it with --noise P (and --oracle)");
    return undefined;
  }
  if (!oracle) throw new UsageError("--noise makes the oracle's answers noisy: it needs --oracle (a real model's noise is its own)");
  if (!RATE.test(noise)) throw new UsageError(`--noise must be a share of the answers from 0 to 1, such as 0.1, not '${noise}'`);
  return { rate: Number(noise), seed: seed === undefined ? 1 : wholeNumberFlag("--seed", seed, 0, 2 ** 31 - 1) };
}
