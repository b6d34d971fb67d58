import { encodeFile, type FileEncoding } from "./file-encoding.js";
import { makeDiff } from "./make-diff.js";

/**
 * One file's diff as the bytes `git apply` takes on the untouched checkout: the diff is made over the file's
 * encoded bytes (each byte read as one character), so a Latin-1 file's lines and a byte-order mark are written
 * exactly as the file holds them, not re-encoded as UTF-8. Empty when nothing changed.
 */
export function encodePatch(path: string, before: string, after: string, encoding: FileEncoding): Buffer {
  const bytes = (text: string): string => encodeFile(text, encoding).toString("latin1");
  // The path goes into the header as UTF-8, like git writes it; read as Latin-1 it comes back out as those bytes.
  return Buffer.from(makeDiff(Buffer.from(path, "utf8").toString("latin1"), bytes(before), bytes(after)), "latin1");
}
