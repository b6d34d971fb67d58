import { heldValue, wholeNumberFrom } from "../../lib/env-number.js";

/** An environment as settings are read from it: the process's, or one a test or a door made. */
export type Env = Readonly<Record<string, string | undefined>>;

/** Who reads a setting: a role of `magis serve` (`web`, `worker`; `all` is both), the Action, `magis locate` and `resolve`, `magis eval`. */
export type Reader = "web" | "worker" | "action" | "cli" | "eval";

/** The group of the typed settings a row lands in (`settings.model.timeoutMs`): what one part of the code is handed. */
export type Part = "server" | "app" | "github" | "model" | "store" | "jobs" | "git" | "runner" | "environments";

/** The values read so far, by variable name: what a row's `onlyWhen` looks at. */
export type ReadSoFar = Readonly<Record<string, unknown>>;

/** When a row is read at all: `says` is how the docs put it ("MAGIS_OBJECT_CACHE_MB is not 0"). */
export interface Condition {
  says: string;
  holds: (read: ReadSoFar) => boolean;
}

/** One setting: the variable, what it holds, who reads it, and how it is read. */
export interface SettingRow<P extends Part = Part, K extends string = string, T = unknown> {
  readonly part: P;
  readonly key: K;
  /** The variable; `MAGIS_MODEL_<AGENT>` names a family, one variable per agent. */
  readonly name: string;
  readonly readers: readonly Reader[];
  /** What it holds, for the docs and the help: `milliseconds, from 1 to 3600000`, `one of json_schema, json`, `URL`. */
  readonly shape: string;
  /** A whole number's range. */
  readonly bounds?: { min: number; max?: number };
  /** Its default as the docs say it; "" when it has none. */
  readonly fallbackText: string;
  /** Where one reader's default differs from `fallbackText`, that reader's, as the docs say it. */
  readonly fallbackTextFor?: Partial<Record<Reader, string>>;
  /** One sentence: what it does. */
  readonly about: string;
  /** When it is read at all; otherwise it holds `unsetValue`, so a value nothing uses stops nothing. */
  readonly onlyWhen?: Condition;
  /** The input of the GitHub Action (action.yml) that sets it: given, the input wins over the variable. */
  readonly input?: string;
  /** Whether reading it can fail (a number, a choice): such a row is checked only for the doors whose readers read it. */
  readonly checked: boolean;
  /** Its value when unset, and where it is not read. */
  readonly unsetValue: T;
  /** Its value in `env`; throws, naming the variable and saying what to set, when it holds what it cannot take. */
  read(env: Env): T;
}

/** What every row says about itself. */
interface Described<P extends Part, K extends string> {
  part: P;
  key: K;
  name: string;
  readers: readonly Reader[];
  about: string;
  onlyWhen?: Condition;
  input?: string;
}

/** A number's bounds and the words its error message uses (see wholeNumberFrom). */
interface NumberRule {
  min: number;
  max?: number;
  /** What it counts, for the docs: `milliseconds`, `seconds`, `megabytes`. */
  unit: string;
  /** What the number is, for the message: "the jobs one process runs at once". */
  meaning: string;
}

const blank = (raw: string | undefined): boolean => raw === undefined || raw.trim() === "";

/** A whole number with a default. */
function wholeNumber<const P extends Part, const K extends string>(row: Described<P, K> & NumberRule & { fallback: number }): SettingRow<P, K, number>;
/** A whole number without a default: unset, something else decides (`unset` says what, in the message and the docs). */
function wholeNumber<const P extends Part, const K extends string>(row: Described<P, K> & NumberRule & { unset: string }): SettingRow<P, K, number | undefined>;
function wholeNumber<const P extends Part, const K extends string>(
  row: Described<P, K> & NumberRule & { fallback?: number; unset?: string },
): SettingRow<P, K, number | undefined> {
  const { fallback, unset, min, max, unit, meaning } = row;
  const range = max === undefined ? `${min} or more` : `from ${min} to ${max}`;
  return {
    ...described(row),
    shape: `${unit}, ${range}`,
    bounds: { min, max },
    fallbackText: unset ?? String(fallback),
    checked: true,
    unsetValue: fallback,
    read: (env) => (blank(env[row.name]) ? fallback : wholeNumberFrom(env, row.name, { fallback: fallback ?? 0, min, max, meaning, unset })),
  };
}

/** What a text row holds, as the docs name it. */
type TextKind = "text" | "URL" | "path" | "secret" | "secret URL";

/** How a text row is read: blank is unset unless `keepBlank` (an empty MAGIS_TRACE_DIR turns traces off). */
interface TextRule {
  kind: TextKind;
  keepBlank?: boolean;
  /** The default as the docs say it when the code that uses it decides it ("the system's temp folder"). */
  fallbackText?: string;
  /** Where one reader's code decides another default, that reader's, as the docs say it. */
  fallbackTextFor?: Partial<Record<Reader, string>>;
}

/** Text with a default. */
function text<const P extends Part, const K extends string>(row: Described<P, K> & TextRule & { fallback: string }): SettingRow<P, K, string>;
/** Text without a default here: unset is `undefined`, and the code that uses it decides. */
function text<const P extends Part, const K extends string>(row: Described<P, K> & TextRule): SettingRow<P, K, string | undefined>;
function text<const P extends Part, const K extends string>(row: Described<P, K> & TextRule & { fallback?: string }): SettingRow<P, K, string | undefined> {
  const { fallback, keepBlank = false } = row;
  return {
    ...described(row),
    shape: row.kind,
    fallbackText: row.fallbackText ?? fallback ?? "",
    ...(row.fallbackTextFor ? { fallbackTextFor: row.fallbackTextFor } : {}),
    checked: false,
    unsetValue: fallback,
    read: (env) => {
      const raw = env[row.name];
      return (keepBlank ? raw : raw || undefined) ?? fallback;
    },
  };
}

/** One of a few words. */
function choice<const P extends Part, const K extends string, const C extends string>(
  row: Described<P, K> & {
    choices: readonly C[];
    fallback: C;
    /** What a wrong value is not, for the message: "a level". */
    wanted: string;
    /** Whether a blank value is a wrong one rather than unset. */
    blankIsWrong?: boolean;
    /** The message for a wrong value, where it is not the usual one. */
    refusal?: (raw: string) => string;
  },
): SettingRow<P, K, C> {
  const { choices, fallback, blankIsWrong = false } = row;
  const refuse =
    row.refusal ?? ((raw: string) => `${row.name} ${heldValue(raw, row.wanted)}: set it to one of ${choices.join(", ")}, or leave it unset for ${fallback}`);
  return {
    ...described(row),
    shape: `one of ${choices.join(", ")}`,
    fallbackText: fallback,
    checked: true,
    unsetValue: fallback,
    read: (env) => {
      const raw = env[row.name];
      if (raw === undefined || (raw === "" && !blankIsWrong)) return fallback;
      if (!(choices as readonly string[]).includes(raw)) throw new Error(refuse(raw));
      return raw as C;
    },
  };
}

/** A switch that is on only when the variable is exactly `on`. */
function flag<const P extends Part, const K extends string>(row: Described<P, K> & { on: string }): SettingRow<P, K, boolean> {
  return { ...described(row), shape: `${row.on} to turn on`, fallbackText: "off", checked: false, unsetValue: false, read: (env) => env[row.name] === row.on };
}

/** A family of variables, one per agent (`MAGIS_MODEL_QA`): the agents whose variable is set, each with its value. */
function perAgent<const P extends Part, const K extends string, const A extends string>(
  row: Omit<Described<P, K>, "name"> & { prefix: string; agents: readonly A[]; fallbackText: string },
): SettingRow<P, K, Partial<Record<A, string>>> {
  return {
    ...described({ ...row, name: `${row.prefix}<AGENT>` }),
    shape: `text; AGENT is one of ${row.agents.map((agent) => agent.toUpperCase()).join(", ")}`,
    fallbackText: row.fallbackText,
    checked: false,
    unsetValue: {},
    read: (env) => {
      const models: Partial<Record<A, string>> = {};
      for (const agent of row.agents) {
        const value = env[`${row.prefix}${agent.toUpperCase()}`];
        if (value) models[agent] = value;
      }
      return models;
    },
  };
}

/** A list of words separated by commas (spaces around them dropped); unset or blank is the empty list. */
function list<const P extends Part, const K extends string>(row: Described<P, K> & { fallbackText: string }): SettingRow<P, K, readonly string[]> {
  return {
    ...described(row),
    shape: "a list, separated by commas",
    fallbackText: row.fallbackText,
    checked: false,
    unsetValue: [],
    read: (env) =>
      (env[row.name] ?? "")
        .split(",")
        .map((word) => word.trim())
        .filter((word) => word !== ""),
  };
}

function described<P extends Part, K extends string>(row: Described<P, K>): Described<P, K> {
  const { part, key, name, readers, about, onlyWhen, input } = row;
  return { part, key, name, readers, about, ...(onlyWhen ? { onlyWhen } : {}), ...(input ? { input } : {}) };
}

/** The kinds of rows the settings table is made of, each reading its variable one way. */
export const setting = { wholeNumber, text, choice, flag, perAgent, list };
