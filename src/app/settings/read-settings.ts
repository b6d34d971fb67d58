import type { Env, Reader, SettingRow } from "./define-setting.js";
import { SETTINGS_TABLE, type Settings } from "./settings-table.js";

/** Where MAGIS runs: `magis serve` (any role), `magis action`, `magis locate` and `resolve`, `magis eval`. */
export type Door = "serve" | "action" | "cli" | "eval";

/** The readers of the settings table each door stands for. */
export const DOOR_READERS: Readonly<Record<Door, readonly Reader[]>> = {
  serve: ["web", "worker"],
  action: ["action"],
  cli: ["cli"],
  eval: ["eval"],
};

/**
 * Reads every setting of the table from `env` once, in the table's order, into one frozen object by part
 * (`settings.git.objectCacheMb`). Numbers and choices that `door` reads and that hold what they cannot take throw one
 * error naming each (its variable, what it holds, what to set), in the table's order: a mistyped setting stops the door
 * when it starts, and a second one is not found only at the next start. One that `door` does not read is not checked
 * and holds its default, so a mistake in a setting one door ignores never stops another; nor is a row whose `onlyWhen`
 * does not hold (MAGIS_OBJECT_CACHE_DAYS with MAGIS_OBJECT_CACHE_MB=0). Text is read for every door: reading it cannot fail.
 */
export function readSettings(env: Env, { door }: { door: Door }): Settings {
  const readers = DOOR_READERS[door];
  const given = door === "action" ? withActionInputs(env) : env;
  const read: Record<string, unknown> = {};
  const parts: Record<string, Record<string, unknown>> = {};
  const problems: string[] = [];
  for (const row of SETTINGS_TABLE) {
    const checkedHere = !row.checked || row.readers.some((reader) => readers.includes(reader));
    const wanted = checkedHere && (row.onlyWhen?.holds(read) ?? true);
    let value: unknown = row.unsetValue;
    try {
      if (wanted) value = readRow(row, given, given !== env && given[row.name] !== env[row.name]);
    } catch (error) {
      // The rows after it are still checked, those that depend on it against its default.
      problems.push(error instanceof Error ? error.message : String(error));
    }
    read[row.name] = value;
    (parts[row.part] ??= {})[row.key] = value;
  }
  if (problems.length === 1) throw new Error(problems[0]);
  if (problems.length > 1)
    throw new Error([`${problems.length} settings hold what they cannot take:`, ...problems.map((problem) => `- ${problem}`)].join("\n"));
  for (const part of Object.values(parts)) {
    for (const value of Object.values(part)) if (typeof value === "object" && value !== null) Object.freeze(value);
    Object.freeze(part);
  }
  return Object.freeze(parts) as unknown as Settings;
}

/** The variable the runner sets for an input of a JavaScript action: `INPUT_` and the input's name in capitals. */
export function inputVariable(input: string): string {
  return `INPUT_${input.replace(/ /g, "_").toUpperCase()}`;
}

/**
 * `env` with each input of the Action that was given (not blank) in the variable of the setting it sets: the runner
 * hands a JavaScript action its inputs as INPUT_* variables, and every input has a row (`input` in the table). A blank
 * input leaves the variable as the workflow's `env:` set it.
 */
function withActionInputs(env: Env): Env {
  const merged: Record<string, string | undefined> = { ...env };
  for (const row of SETTINGS_TABLE) {
    const value = row.input === undefined ? undefined : env[inputVariable(row.input)];
    if (value !== undefined && value.trim() !== "") merged[row.name] = value;
  }
  return merged;
}

/** A row's value; a refusal of a value an input gave names the input, which is what the workflow's author wrote. */
function readRow(row: SettingRow, env: Env, fromInput: boolean): unknown {
  try {
    return row.read(env);
  } catch (error) {
    if (!fromInput || !(error instanceof Error)) throw error;
    throw new Error(`the action's input ${row.input} (read as ${row.name}): ${error.message}`, { cause: error });
  }
}
