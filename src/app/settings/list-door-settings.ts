import type { SettingRow } from "./define-setting.js";
import { DOOR_READERS, type Door } from "./read-settings.js";
import { SETTINGS_TABLE } from "./settings-table.js";

// The order the docs and the help show the parts in: from the server in, then the job's parts, then the Action's.
const PART_ORDER = ["server", "app", "github", "store", "jobs", "model", "git", "runner"];

/** The rows a door reads, part by part (the table's own order is the order they are checked in), each with the default it has there. */
export function listDoorSettings(door: Door): SettingRow[] {
  const readers = DOOR_READERS[door];
  const rows: SettingRow[] = SETTINGS_TABLE.filter((row) => row.readers.some((reader) => readers.includes(reader))).map((row: SettingRow) => {
    const own = readers.map((reader) => row.fallbackTextFor?.[reader]).find((text) => text !== undefined);
    return own === undefined ? row : { ...row, fallbackText: own };
  });
  return rows.sort((a, b) => PART_ORDER.indexOf(a.part) - PART_ORDER.indexOf(b.part));
}
