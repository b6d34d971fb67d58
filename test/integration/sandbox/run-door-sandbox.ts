// Builds the sandbox a door builds, from this process's environment and working folder, runs one command in a fresh
// copy through it and prints what the command printed. The sandbox tests start it as an ordinary user, and from a shell
// that left a descriptor open, which the test process itself cannot be.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sandboxWanted } from "../../../src/app/create-services.js";
import { readSettings } from "../../../src/app/settings/read-settings.js";
import { chooseSandbox } from "../../../src/sandbox/choose-sandbox.js";

const choice = chooseSandbox(sandboxWanted(readSettings(process.env, { door: "serve" }), { env: process.env, secrets: [] }));
if (!choice.sandbox) throw new Error(`no sandbox: ${choice.why}`);
const copy = fs.mkdtempSync(path.join(os.tmpdir(), "magis-door-copy-"));
try {
  choice.sandbox.prepare(copy);
  const run = await choice.sandbox.run(process.argv[2]!, { dir: copy, env: {}, timeoutMs: 30_000 });
  process.stdout.write(run.output);
} finally {
  fs.rmSync(copy, { recursive: true, force: true });
}
