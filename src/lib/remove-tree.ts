import fs from "node:fs";
import path from "node:path";

/**
 * Removes a folder and everything in it, gone or not. A folder a command left without write or search permission
 * (`chmod 0500 .venv`) stops a bot that is not root: such folders are opened up first, and the removal tried again.
 */
export async function removeTree(dir: string): Promise<void> {
  try {
    await fs.promises.rm(dir, { recursive: true, force: true });
  } catch (error) {
    if (!isPermissionError(error)) throw error;
    await openUp(dir);
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

function isPermissionError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "EACCES" || code === "EPERM";
}

/** Gives the owner every permission on each folder under `dir` (links are not followed: lstat). */
async function openUp(dir: string): Promise<void> {
  const stat = await fs.promises.lstat(dir).catch(() => null);
  if (!stat?.isDirectory()) return;
  await fs.promises.chmod(dir, 0o700);
  for (const entry of await fs.promises.readdir(dir, { withFileTypes: true })) if (entry.isDirectory()) await openUp(path.join(dir, entry.name));
}

/** removeTree, waiting for it: for a job's small layer between two runs. */
export function removeTreeSync(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true });
  } catch (error) {
    if (!isPermissionError(error)) throw error;
    openUpSync(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function openUpSync(dir: string): void {
  if (!fs.lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return;
  fs.chmodSync(dir, 0o700);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) openUpSync(path.join(dir, entry.name));
}
