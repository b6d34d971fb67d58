import { isUtf8 } from "node:buffer";
import { splitFile } from "./split-text.js";

/**
 * How a file's bytes map to the text the team reads and edits, decided once when the file is read:
 * UTF-8, UTF-8 behind a byte-order mark (the mark is not part of the text), or — for anything that is
 * not valid UTF-8 — Latin-1, which maps each byte to one character and back, so no byte is ever lost.
 */
export type FileEncoding = "utf-8" | "utf-8-bom" | "latin1";

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** A file's text (without byte-order mark) and the encoding that writes it back byte for byte. */
export function decodeFile(bytes: Uint8Array): { text: string; encoding: FileEncoding } {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!isUtf8(buffer)) return { text: buffer.toString("latin1"), encoding: "latin1" };
  if (buffer.subarray(0, 3).equals(BOM)) return { text: buffer.subarray(3).toString("utf8"), encoding: "utf-8-bom" };
  return { text: buffer.toString("utf8"), encoding: "utf-8" };
}

/** The bytes of `text` in `encoding`; throws rather than write a character the encoding cannot hold. */
export function encodeFile(text: string, encoding: FileEncoding): Buffer {
  const problem = findUnencodable(text, encoding);
  if (problem) throw new Error(`cannot write the text as ${describeEncoding(encoding)}: ${problem}`);
  if (encoding === "latin1") return Buffer.from(text, "latin1");
  return encoding === "utf-8-bom" ? Buffer.concat([BOM, Buffer.from(text, "utf8")]) : Buffer.from(text, "utf8");
}

/** Where `text` holds a character `encoding` cannot write (line, column, character), or null when it has none. */
export function findUnencodable(text: string, encoding: FileEncoding): string | null {
  // Latin-1 holds U+0000–U+00FF; UTF-8 holds every character but a lone surrogate, which no file bytes decode to.
  // eslint-disable-next-line no-control-regex -- the range starts at U+0000 on purpose: every Latin-1 character
  const bad = encoding === "latin1" ? /[^\u0000-\u00ff]/u : /\p{Surrogate}/u;
  const { lines } = splitFile(text);
  for (let k = 0; k < lines.length; k++) {
    const found = bad.exec(lines[k]!);
    if (!found) continue;
    const char = found[0];
    const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    return `line ${k + 1}, column ${found.index + 1} has '${char}' (U+${code})`;
  }
  return null;
}

/** The encoding in words, for messages to the model and the maintainer. */
export function describeEncoding(encoding: FileEncoding): string {
  if (encoding === "latin1") return "Latin-1 (ISO-8859-1), one byte per character";
  return encoding === "utf-8-bom" ? "UTF-8 with a byte-order mark" : "UTF-8";
}
