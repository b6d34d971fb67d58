import { changeObject, objectOf, type NoiseKind, type NoisyContent, type OracleAnswer } from "./noise-kind.js";
import { pick, type Random } from "./seeded-random.js";

/** A verdict's field and the field that gives its reason, in the answers that have both. */
const VERDICT_REASONS: Record<string, string> = { relevant: "reason", approved: "comment", reproduced: "reason", way: "reason", change: "reason" };

/** One field renamed in case (`approved` → `Approved`, `needs_change` → `NeedsChange` or `NEEDS_CHANGE`). */
export const fieldCase: NoiseKind = {
  name: "field-case",
  fits: (answer) => keysOf(answer).length > 0,
  apply: (answer, random) => {
    const key = pick(random, keysOf(answer));
    const renamed = pick(
      random,
      [capitalize(key), key.toUpperCase(), key.split("_").map(capitalize).join("")].filter((k) => k !== key),
    );
    if (objectOf(answer)) return changeObject(answer, (object) => renameKey(object, key, renamed));
    return changeKeyLine(answer, key, (value) => `${renamed}: ${value}`);
  },
};

/** One field left out. */
export const fieldMissing: NoiseKind = {
  name: "field-missing",
  fits: (answer) => keysOf(answer).length > 1,
  apply: (answer, random) => {
    const key = pick(random, keysOf(answer));
    if (objectOf(answer)) return changeObject(answer, (object) => delete object[key]);
    return changeKeyLine(answer, key, () => null);
  },
};

/**
 * A verdict (relevant, approved, reproduced, the way) without the field that gives its reason: the answer's own, or one
 * of the verdicts in a list (custodian-judge-relevance's `files`).
 */
export const verdictWithoutReason: NoiseKind = {
  name: "verdict-without-reason",
  // Only the few answers that hold a verdict fit it: among the kinds that fit them, it would rarely be drawn.
  weight: 3,
  fits: (answer) => verdictPlaces(answer).length > 0,
  apply: (answer, random) => {
    const place = pick(random, verdictPlaces(answer));
    return changeObject(answer, (object) => {
      const holder = place.list === null ? object : (object[place.list] as Record<string, unknown>[])[place.index]!;
      delete holder[place.reason];
    });
  },
};

/** Where a verdict and its reason sit: in the answer's object (list null), or in item `index` of its array `list`. */
interface VerdictPlace {
  list: string | null;
  index: number;
  reason: string;
}

function verdictPlaces(answer: OracleAnswer): VerdictPlace[] {
  const object = objectOf(answer);
  if (!object) return [];
  const own = reasonField(object);
  if (own) return [{ list: null, index: 0, reason: own }];
  return Object.entries(object).flatMap(([list, value]) =>
    Array.isArray(value)
      ? value.flatMap((item: unknown, index) => {
          const reason = isRecord(item) ? reasonField(item) : null;
          return reason ? [{ list, index, reason }] : [];
        })
      : [],
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A file path slightly wrong: its first folder left out, or two letters of its name swapped. */
export const pathWrong: NoiseKind = {
  name: "path-wrong",
  fits: (answer) => typeof pathOf(answer) === "string" && pathOf(answer)!.length > 1,
  apply: (answer, random) => {
    const wrong = misspellPath(pathOf(answer)!, random);
    if (objectOf(answer)) return changeObject(answer, (object) => (object.path = wrong));
    return changeKeyLine(answer, "path", () => `path: ${wrong}`);
  },
};

/** `path` with its first folder dropped (when it has one and a coin says so), else two letters of its file name swapped. */
export function misspellPath(path: string, random: Random): string {
  const slash = path.indexOf("/");
  if (slash > 0 && random() < 0.5) return path.slice(slash + 1);
  const nameStart = path.lastIndexOf("/") + 1;
  const name = path.slice(nameStart);
  const letters = [...name.matchAll(/[a-z](?=[a-z])/gi)].map((m) => m.index).filter((i) => name[i] !== name[i + 1]);
  if (letters.length === 0) return `${path}x`;
  const i = pick(random, letters);
  return path.slice(0, nameStart) + name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2);
}

/** The field that gives the reason of the verdict `object` holds, when it holds both. */
function reasonField(object: Record<string, unknown>): string | null {
  const verdict = Object.keys(VERDICT_REASONS).find((key) => key in object && VERDICT_REASONS[key]! in object);
  return verdict ? VERDICT_REASONS[verdict]! : null;
}

function pathOf(answer: OracleAnswer): string | undefined {
  const object = objectOf(answer);
  if (object) return typeof object.path === "string" ? object.path : undefined;
  return keyLines(answer).find((line) => line.key === "path")?.value;
}

/** The answer's field names: a JSON object's keys, or a text answer's `key: value` lines before its first fence. */
function keysOf(answer: OracleAnswer): string[] {
  const object = objectOf(answer);
  return object ? Object.keys(object) : keyLines(answer).map((line) => line.key);
}

function keyLines(answer: OracleAnswer): { index: number; key: string; value: string }[] {
  if (typeof answer.value !== "string") return [];
  const lines: { index: number; key: string; value: string }[] = [];
  for (const [index, line] of answer.value.split("\n").entries()) {
    if (line.startsWith("```") || line.startsWith("<<<<<<< ")) break;
    const match = /^([a-z_]+):[ \t]*(.*)$/.exec(line);
    if (match) lines.push({ index, key: match[1]!, value: match[2]! });
  }
  return lines;
}

/** A text answer with its `key:` line rewritten from its value, or left out (null). */
function changeKeyLine(answer: OracleAnswer, key: string, rewrite: (value: string) => string | null): NoisyContent {
  const found = keyLines(answer).find((line) => line.key === key)!;
  const lines = (answer.value as string).split("\n");
  const written = rewrite(found.value);
  lines.splice(found.index, 1, ...(written === null ? [] : [written]));
  return { content: lines.join("\n"), finishReason: "stop" };
}

/** Renames a key in place, keeping the keys' order. */
function renameKey(object: Record<string, unknown>, from: string, to: string): void {
  const entries = Object.entries(object).map(([key, value]) => [key === from ? to : key, value] as const);
  for (const key of Object.keys(object)) delete object[key];
  for (const [key, value] of entries) object[key] = value;
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
