import fs from "node:fs";
import { resolveInside, UnsafePathError } from "../../lib/safe-path.js";
import { DeclarationError } from "./declaration-error.js";

/** The largest declaration file read: these are hand-written settings, never data. */
const MAX_DECLARATION_BYTES = 1024 * 1024;

/**
 * Whether a file is at `relative` under `root`: a plain file, or a link that stays inside the checkout. A folder, or
 * nothing, is not; a link that leads outside is (so that reading it refuses it, rather than the next source winning).
 */
export function declarationFileThere(root: string, relative: string): boolean {
  try {
    const { absolute } = resolveInside(root, relative);
    return fs.statSync(absolute).isFile();
  } catch (error) {
    return error instanceof UnsafePathError;
  }
}

/**
 * The text of a declaration file of the checkout. The checkout is the repository's to shape, so a link leading out of
 * it (to a host file) is refused, as is a file past a megabyte.
 */
export function readDeclarationFile(root: string, relative: string): string {
  let absolute: string;
  try {
    ({ absolute } = resolveInside(root, relative));
  } catch (error) {
    if (!(error instanceof UnsafePathError)) throw error;
    // The message is "'<path>' <reason>"; the file is named first already.
    throw new DeclarationError(relative, `cannot be read: it ${error.message.slice(relative.length + 3)}`, "Make it a plain file of the repository");
  }
  const size = fs.statSync(absolute).size;
  if (size > MAX_DECLARATION_BYTES) {
    throw new DeclarationError(relative, `is ${size} bytes; a declaration file may have at most ${MAX_DECLARATION_BYTES}`, "Shorten it");
  }
  return fs.readFileSync(absolute, "utf8");
}
