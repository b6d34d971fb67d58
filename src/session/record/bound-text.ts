/**
 * A string cut to at most `max` characters: its head and its tail, with a line between them that says how much was
 * left out. Both ends are kept because both matter somewhere: a prompt's instructions open it and its question ends
 * it, a diff's first files and a command's last lines (where the error is) are what a reader looks for.
 */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = Math.max(0, max - MARKER_ROOM);
  let head = Math.ceil(room / 2);
  let tail = text.length - (room - head);
  // Never split a surrogate pair: half a character would be an invalid one on the page.
  if (head > 0 && isHighSurrogate(text.charCodeAt(head - 1))) head -= 1;
  if (tail < text.length && isLowSurrogate(text.charCodeAt(tail))) tail += 1;
  return `${text.slice(0, head)}${cutMarker(tail - head)}${text.slice(tail)}`;
}

/** The line that stands where characters were cut out of a string. */
export function cutMarker(cut: number): string {
  return `\n… [${cut.toLocaleString("en-US")} characters cut] …\n`;
}

/** The end of a string, at most `max` characters, starting at a line where one starts near the cut (a command's output). */
export function tailText(text: string, max: number): string {
  if (text.length <= max) return text;
  let start = text.length - max + MARKER_ROOM;
  const line = text.indexOf("\n", start);
  if (line !== -1 && line - start < 200) start = line + 1;
  if (isLowSurrogate(text.charCodeAt(start))) start += 1;
  return `${cutMarker(start).trimStart()}${text.slice(start)}`;
}

// Room the marker takes: its text with a count of up to 15 digits and their commas.
const MARKER_ROOM = cutMarker(1e15).length;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
