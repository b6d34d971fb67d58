import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../../src/cli.js";

// The event file a runner points GITHUB_EVENT_PATH at, as a hostile or broken workflow could make it instead.
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-event-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function action(eventPath: string): Promise<{ code: number; stderr: string }> {
  const stderr: string[] = [];
  const env = { GITHUB_EVENT_NAME: "issues", GITHUB_EVENT_PATH: eventPath, GITHUB_REPOSITORY: "octo/demo", GITHUB_TOKEN: "ghs_notARealToken0123456789" };
  const code = await main(["action"], { stdout: () => {}, stderr: (text) => void stderr.push(text), env, cwd: dir, now: Date.now });
  return { code, stderr: stderr.join("") };
}

describe("magis action's event file", () => {
  it("refuses a FIFO at once instead of waiting on it for ever", async () => {
    const fifo = path.join(dir, "event.json");
    execFileSync("mkfifo", [fifo]);
    const { code, stderr } = await action(fifo);
    expect(code).toBe(2);
    expect(stderr).toContain(`GITHUB_EVENT_PATH (${fifo}) is not a regular file`);
  });

  it("refuses a device that never ends, reading nothing of it", async () => {
    const { code, stderr } = await action("/dev/zero");
    expect(code).toBe(2);
    expect(stderr).toContain("GITHUB_EVENT_PATH (/dev/zero) is not a regular file");
  });

  it("refuses a file over GitHub's 25 MB cap without reading it", async () => {
    const big = path.join(dir, "event.json");
    fs.writeFileSync(big, "");
    fs.truncateSync(big, 26 * 1024 * 1024);
    const { code, stderr } = await action(big);
    expect(code).toBe(2);
    expect(stderr).toMatch(/is 27262976 bytes, more than GitHub's 25 MB cap/);
  });

  it.each([
    ["null", "does not hold a JSON object"],
    ["[1, 2]", "does not hold a JSON object"],
    ["{not json", "could not be read as JSON"],
    [`${"[".repeat(200_000)}${"]".repeat(200_000)}`, "nests its JSON more than 256 levels deep"],
  ])("says what is wrong with %s", async (content, problem) => {
    const file = path.join(dir, "event.json");
    fs.writeFileSync(file, content);
    const { code, stderr } = await action(file);
    expect(code).toBe(2);
    expect(stderr).toContain(problem);
    expect(stderr).not.toContain("TypeError");
  });
});
