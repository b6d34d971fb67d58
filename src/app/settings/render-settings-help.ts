import { listDoorSettings } from "./list-door-settings.js";
import type { Door } from "./read-settings.js";

const WIDTH = 120;
const COLUMN = 36;

/** The Environment section of a command's --help, generated from the settings table: each variable the door reads, its default, what it does. */
export function renderSettingsHelp(door: Door): string {
  const lines = ["Environment (docs/configuration.md gives each setting's bounds; a mistyped one stops the command):"];
  for (const row of listDoorSettings(door)) {
    const head = `  ${row.name}${row.fallbackText && row.fallbackText.length <= 30 ? ` (${row.fallbackText})` : ""}`;
    const about = row.onlyWhen ? `${row.about} Read only when ${row.onlyWhen.says}.` : row.about;
    const text = wrap(about, WIDTH - COLUMN);
    if (head.length < COLUMN) lines.push(`${head.padEnd(COLUMN)}${text[0]}`);
    else lines.push(head, `${" ".repeat(COLUMN)}${text[0]}`);
    for (const more of text.slice(1)) lines.push(`${" ".repeat(COLUMN)}${more}`);
  }
  return lines.join("\n");
}

/** Words in lines of at most `width` characters (a longer word gets a line of its own). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}
