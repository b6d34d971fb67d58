import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { withEnvFile } from "../../../src/lib/read-env-file.js";
import { runInProcessGroup } from "../../support/run-in-process-group.js";

const MAGIS = path.resolve(import.meta.dirname, "../../integration/locate/run-magis.ts");
// By its path: the command runs in a temp folder, where `--import tsx` would not find the package.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-env-file-"));
  dirs.push(dir);
  return dir;
}

describe("withEnvFile", () => {
  // Notepad and some editors write a byte-order mark: the first key was read as "\uFEFFAPP_ID" and APP_ID stayed unset.
  it("reads the first key of a file that starts with a UTF-8 byte-order mark", () => {
    const file = path.join(tempDir(), ".env");
    fs.writeFileSync(file, "\uFEFFAPP_ID=1046375\r\nWEBHOOK_SECRET=s3cret\r\n");
    const { env, read } = withEnvFile({}, file, { required: true });
    expect(read).toEqual(["APP_ID", "WEBHOOK_SECRET"]);
    expect(env).toEqual({ APP_ID: "1046375", WEBHOOK_SECRET: "s3cret" });
  });

  it("follows a link to the file (a mounted secret is one), and refuses a folder naming it", () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "real.env"), "APP_ID=7\n");
    fs.symlinkSync(path.join(dir, "real.env"), path.join(dir, ".env"));
    expect(withEnvFile({}, path.join(dir, ".env"), { required: false }).env).toEqual({ APP_ID: "7" });
    expect(() => withEnvFile({}, dir, { required: false })).toThrow(`${dir} is a folder, not a regular file`);
  });

  // A FIFO as the working folder's .env held `magis serve` in readFileSync before anything started, saying nothing. Run
  // as a process: a blocking read would stop this process's own timers too.
  it("refuses a FIFO as the env file at once, naming it, instead of waiting for a writer", { timeout: 90_000 }, async () => {
    const dir = tempDir();
    execFileSync("mkfifo", [path.join(dir, ".env")]);
    const run = await runInProcessGroup(process.execPath, ["--import", TSX, MAGIS, "serve"], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir },
      timeoutMs: 60_000,
    });
    expect(run.out).toContain(
      `magis serve: ${path.join(dir, ".env")} is a FIFO, not a regular file: name the .env file itself, or set the variables in the environment instead`,
    );
    expect(run.code).toBe(2);
  });
});
