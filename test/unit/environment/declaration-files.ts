import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runInProcessGroup } from "../../support/run-in-process-group.js";

/** Temp checkouts of the declaration tests, each made of the files given, removed by `removeCheckouts`. */
const made: string[] = [];

export function checkoutWith(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-declaration-"));
  made.push(root);
  for (const [relative, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), text);
  }
  return root;
}

export function removeCheckouts(): void {
  for (const root of made.splice(0)) fs.rmSync(root, { recursive: true, force: true });
}

/** Runs a step's command as the workbench does, `/bin/sh -c` at the root, in a process group killed when it ends. */
export function runStep(root: string, command: string, env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  return runInProcessGroup("/bin/sh", ["-c", command], { cwd: root, env: { PATH: process.env.PATH!, ...env }, timeoutMs: 20_000 });
}
