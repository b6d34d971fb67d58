import fs from "node:fs";
import path from "node:path";

/** The first executable of that name in the folders of a PATH, or undefined. */
export function findProgram(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(":").filter(Boolean)) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
