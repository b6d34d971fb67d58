import crypto from "node:crypto";
import fs from "node:fs";

/** A name beside `file` no other process picks: where a file is made before it is renamed over `file`. */
function temporaryBeside(file: string): string {
  return `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
}

/** Writes a file whole or not at all: to a temporary name, then renamed over. */
export function writeWhole(file: string, data: Buffer | string): void {
  const temporary = temporaryBeside(file);
  try {
    fs.writeFileSync(temporary, data, { mode: 0o600 });
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

/** Puts a copy of `from` at `file` whole or not at all: a hard link where the file system allows (packs never change once written), else a copy. */
export function copyWhole(from: string, file: string): void {
  const temporary = temporaryBeside(file);
  try {
    try {
      fs.linkSync(from, temporary);
    } catch {
      fs.copyFileSync(from, temporary);
    }
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}
