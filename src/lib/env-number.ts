/** The longest delay Node's timers keep: a longer one fires at once (TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** What a numeric environment variable may hold. */
export interface WholeNumberRule {
  /** Its value when unset or blank. */
  fallback: number;
  min: number;
  /** Default: no bound but JavaScript's safe integers. */
  max?: number;
  /** What the number is, for the message: "the jobs one process runs at once". */
  meaning: string;
  /** What unset means, for the message, when it is not simply `fallback`: "each repository's token_budget". */
  unset?: string;
}

// A value is quoted back only when it cannot be a secret pasted on the wrong line: short, and no address or key.
const QUOTABLE = /^[\w .,+-]{1,20}$/;

/**
 * How a message names what a setting holds: `is '<value>'`, or, when the value could be a secret pasted on the wrong
 * line (long, or with an address's or a key's characters), only how long it is and that it is not `wanted`.
 */
export function heldValue(raw: string, wanted: string): string {
  return QUOTABLE.test(raw) ? `is '${raw}'` : `holds ${raw.length} characters that are not ${wanted} (not shown: they may be a secret set on the wrong line)`;
}

/**
 * The whole number `text` spells: digits, with `_` allowed between them (`120_000`), spaces around them ignored;
 * NaN for anything else (a sign, a fraction, an exponent, hex, a word, nothing), which `Number` would take or
 * read as 0. Settings and command-line flags read numbers this one way.
 */
export function parseWholeNumber(text: string): number {
  const digits = text.trim();
  return /^\d+(?:_\d+)*$/.test(digits) ? Number(digits.replace(/_/g, "")) : Number.NaN;
}

/**
 * The whole number the environment variable `name` holds: digits, with `_` allowed between them (`120_000`), and
 * `fallback` when it is unset or blank. Anything else (a sign, a fraction, an exponent, hex, a word) and a number
 * outside the rule's range is an error that names the variable, quotes what it holds (unless that might be a secret)
 * and says what to set: a mistyped setting stops the app when it starts, rather than running it on the default or on
 * a nonsense value.
 */
export function wholeNumberFrom(env: NodeJS.ProcessEnv, name: string, rule: WholeNumberRule): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return rule.fallback;
  const value = parseWholeNumber(raw);
  const max = rule.max ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(value) || value < rule.min || value > max) {
    const range = rule.max === undefined ? `${rule.min} or more` : `from ${rule.min} to ${rule.max}`;
    throw new Error(
      `${name} ${heldValue(raw, "such a number")}: set it to ${rule.meaning} (a whole number, ${range}), or leave it unset for ${rule.unset ?? rule.fallback}`,
    );
  }
  return value;
}
