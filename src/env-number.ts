/** What a numeric environment variable may hold. */
export interface WholeNumberRule {
  /** Its value when unset or blank. */
  fallback: number;
  min: number;
  /** Default: no bound but JavaScript's safe integers. */
  max?: number;
  /** What the number is, for the message: "the jobs one process runs at once". */
  meaning: string;
}

/**
 * The whole number the environment variable `name` holds: digits, with `_` allowed between them (`120_000`), and
 * `fallback` when it is unset or blank. Anything else (a sign, a fraction, an exponent, hex, a word) and a number
 * outside the rule's range is an error that names the variable, quotes what it holds and says what to set: a
 * mistyped setting stops the app when it starts, rather than running it on the default or on a nonsense value.
 */
export function wholeNumberFrom(env: NodeJS.ProcessEnv, name: string, rule: WholeNumberRule): number {
  const raw = env[name];
  const setting = raw?.trim();
  if (setting === undefined || setting === "") return rule.fallback;
  const value = /^\d+(?:_\d+)*$/.test(setting) ? Number(setting.replace(/_/g, "")) : Number.NaN;
  const max = rule.max ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(value) || value < rule.min || value > max) {
    const range = rule.max === undefined ? `${rule.min} or more` : `from ${rule.min} to ${rule.max}`;
    throw new Error(`${name} is '${raw}': set it to ${rule.meaning} (a whole number, ${range}), or leave it unset for ${rule.fallback}`);
  }
  return value;
}
