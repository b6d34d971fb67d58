import fs from "node:fs";
import { decodeFile, type FileEncoding } from "../edit/file-encoding.js";
import { resolveInside, UnsafePathError } from "../lib/safe-path.js";
import { protectingPattern } from "../lib/protected-paths.js";
import type { StageContext } from "./types.js";

/**
 * A file of the checkout that the team may change, with its text and the encoding that writes the text back
 * byte for byte, or the precise reason it may not be changed.
 */
export type EditableFile = { ok: true; path: string; text: string; encoding: FileEncoding } | { ok: false; error: string };

/**
 * Reads a file a task or the model named, refusing paths outside the checkout, protected paths,
 * missing, oversized and binary files with a message that can go straight back to the model. The encoding is
 * decided here, once: every later write of the file uses it.
 */
export function openEditableFile(ctx: Pick<StageContext, "root" | "config">, requested: string): EditableFile {
  let resolved: { relative: string; absolute: string };
  try {
    resolved = resolveInside(ctx.root, requested);
  } catch (error) {
    if (error instanceof UnsafePathError) return { ok: false, error: `${error.message}; you may only change files inside the repository` };
    throw error;
  }
  const { relative, absolute } = resolved;
  const protecting = protectingPattern(ctx.config.protected_paths, relative);
  if (protecting !== null) {
    return { ok: false, error: `'${relative}' is protected (it matches \`${protecting}\` in protected_paths); it must not be changed` };
  }
  const stat = fs.lstatSync(absolute, { throwIfNoEntry: false });
  if (stat?.isSymbolicLink() || (stat && fs.realpathSync(absolute) !== absolute)) {
    // A link inside the repository may lead to a protected file under another name; its target is what would change.
    return { ok: false, error: `'${relative}' is a symbolic link or lies under one; change the file it points to by its own path` };
  }
  if (!stat || !stat.isFile()) return { ok: false, error: `'${relative}' does not exist in the repository` };
  if (stat.size > ctx.config.max_file_bytes) {
    return { ok: false, error: `'${relative}' has ${stat.size} bytes, more than max_file_bytes (${ctx.config.max_file_bytes})` };
  }
  const buffer = fs.readFileSync(absolute);
  if (buffer.includes(0)) return { ok: false, error: `'${relative}' is a binary file` };
  return { ok: true, path: relative, ...decodeFile(buffer) };
}
