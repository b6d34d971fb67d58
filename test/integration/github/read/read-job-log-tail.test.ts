import { Readable } from "node:stream";
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { createOctokitClass } from "../../../../src/github/client/create-octokit-class.js";
import { readJobLogTail } from "../../../../src/github/read/read-job-log-tail.js";
import type { Octokit } from "../../../../src/github/types.js";
import { readSettings } from "../../../../src/app/settings/read-settings.js";

const API = "https://api.github.com";
const LOGS = "https://results-receiver.example.test";
const repo = { owner: "Codertocat", repo: "Hello-World" };
const octokit = () => new (createOctokitClass(readSettings({}, { door: "serve" }).github))({ auth: { token: "ghs_logTailToken0123456789" } }) as Octokit;

afterEach(() => nock.cleanAll());

/** A log of `lines` lines produced chunk by chunk as it is read, never held whole by the server either. */
function streamedLog(lines: number): Readable {
  let i = 0;
  return new Readable({
    read() {
      const chunk: string[] = [];
      for (let n = 0; n < 10_000 && i < lines; n++, i++) chunk.push(`2026-11-23T10:00:00.0000000Z line ${String(i).padStart(9, "0")} ${"x".repeat(60)}`);
      this.push(i <= lines && chunk.length > 0 ? `${chunk.join("\n")}\n` : null);
    },
  });
}

describe("readJobLogTail", () => {
  it("follows the redirect by hand, asks for the last bytes, and sends the token only to GitHub", async () => {
    let authAtLogs: string | undefined;
    nock(API)
      .get("/repos/Codertocat/Hello-World/actions/jobs/42/logs")
      .matchHeader("authorization", /ghs_logTailToken/)
      .reply(302, "", { location: `${LOGS}/logs/42.txt?sig=abc` });
    nock(LOGS)
      .get("/logs/42.txt")
      .query({ sig: "abc" })
      .reply(function () {
        authAtLogs = this.req.headers.authorization as string | undefined;
        return [206, "the last line\n", { "content-range": "bytes 999986-999999/1000000" }];
      });
    expect(await readJobLogTail(octokit(), repo, 42)).toEqual({ text: "the last line\n", bytesRead: 14, cut: true });
    expect(authAtLogs).toBeUndefined();
  });

  it("a 50 MB log sent whole is read as a stream and cut to its tail, from a line's start", async () => {
    const lines = 600_000;
    nock(API)
      .get("/repos/Codertocat/Hello-World/actions/jobs/43/logs")
      .reply(302, "", { location: `${LOGS}/logs/43.txt` });
    nock(LOGS)
      .get("/logs/43.txt")
      .reply(200, () => streamedLog(lines));
    const tail = await readJobLogTail(octokit(), repo, 43, { keepBytes: 8 * 1024 });
    expect(tail.bytesRead).toBeGreaterThan(50_000_000);
    expect(tail.cut).toBe(true);
    expect(tail.text.length).toBeLessThanOrEqual(8 * 1024);
    expect(tail.text.startsWith("2026-11-23T10:00:00.0000000Z line ")).toBe(true);
    expect(tail.text.endsWith(`line ${String(lines - 1).padStart(9, "0")} ${"x".repeat(60)}\n`)).toBe(true);
  });

  it("stops reading at maxBytes and says the log was cut", async () => {
    nock(API)
      .get("/repos/Codertocat/Hello-World/actions/jobs/44/logs")
      .reply(302, "", { location: `${LOGS}/logs/44.txt` });
    nock(LOGS)
      .get("/logs/44.txt")
      .reply(200, () => streamedLog(1_000_000));
    const tail = await readJobLogTail(octokit(), repo, 44, { keepBytes: 1024, maxBytes: 2_000_000 });
    expect(tail.cut).toBe(true);
    expect(tail.bytesRead).toBeGreaterThanOrEqual(2_000_000);
    expect(tail.bytesRead).toBeLessThan(3_000_000);
  });

  it("a log that expired (404 at the download) is an error that says so", async () => {
    nock(API)
      .get("/repos/Codertocat/Hello-World/actions/jobs/45/logs")
      .reply(302, "", { location: `${LOGS}/logs/45.txt` });
    nock(LOGS).get("/logs/45.txt").reply(404, "gone");
    await expect(readJobLogTail(octokit(), repo, 45)).rejects.toThrow("the log of job 45 could not be downloaded (status 404)");
  });
});
