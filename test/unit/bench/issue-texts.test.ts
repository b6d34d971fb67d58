import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { fetchIssue, fillIssueTexts, readManifest } from "../../../bench/lib/issue-texts.js";

const url = "https://github.com/pytest-dev/pytest/issues/12367";
const entry = {
  instance_id: "pytest-12367",
  repo: "pytest-dev/pytest",
  base_commit: "889d9b28d786c75b66f4d1acb80123bdb341639c",
  gold_files: ["src/_pytest/unittest.py"],
  issue_url: url,
};

afterEach(() => nock.cleanAll());

describe("fillIssueTexts", () => {
  it("makes the problem statement from the issue's title and first post, sending the token only as a header", async () => {
    nock("https://api.github.com", { reqheaders: { authorization: "Bearer ghs_bench_token" } })
      .get("/repos/pytest-dev/pytest/issues/12367")
      .reply(200, { title: "Unittest class instances no longer released", body: "Since 8.2 pytest holds onto\r\nclass instances." });
    const [instance] = await fillIssueTexts([entry], (u) => fetchIssue(u, "ghs_bench_token"));
    expect(instance).toEqual({ ...entry, problem_statement: "Unittest class instances no longer released\nSince 8.2 pytest holds onto\nclass instances." });
  });

  it("says to set GITHUB_TOKEN when GitHub refuses a request without one", async () => {
    nock("https://api.github.com").get("/repos/pytest-dev/pytest/issues/12367").reply(403, { message: "API rate limit exceeded" });
    await expect(fetchIssue(url, undefined)).rejects.toThrow(/set GITHUB_TOKEN/);
  });

  it("says to check the token when GitHub refuses one, without echoing it", async () => {
    nock("https://api.github.com").get("/repos/pytest-dev/pytest/issues/12367").reply(403, { message: "Resource protected by SAML" });
    const failure = fetchIssue(url, "ghs_bench_token");
    await expect(failure).rejects.toThrow(/token may lack access/);
    await expect(failure).rejects.not.toThrow(/ghs_bench_token/);
  });

  it("says what to do about an issue that is gone", async () => {
    nock("https://api.github.com").get("/repos/pytest-dev/pytest/issues/12367").reply(404, { message: "Not Found" });
    await expect(fetchIssue(url, undefined)).rejects.toThrow(/correct or drop that line of the manifest/);
  });

  it("refuses a pull request given as an issue", async () => {
    nock("https://api.github.com").get("/repos/pytest-dev/pytest/issues/12367").reply(200, { title: "fix", body: "", pull_request: {} });
    await expect(fetchIssue(url, undefined)).rejects.toThrow(/is a pull request, not an issue/);
  });
});

describe("readManifest", () => {
  it("names the line and the field that is wrong", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-manifest-"));
    const file = path.join(dir, "m.jsonl");
    try {
      fs.writeFileSync(file, `${JSON.stringify(entry)}\n${JSON.stringify({ ...entry, issue_url: "https://github.com/pytest-dev/pytest/pull/1" })}\n`);
      expect(() => readManifest(file)).toThrow(/m\.jsonl:2: issue_url must look like/);
      fs.writeFileSync(file, `${JSON.stringify(entry)}\n`);
      expect(readManifest(file)).toEqual([entry]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the committed held-out manifest", () => {
  it("reads, and each issue belongs to the instance's repository", () => {
    const entries = readManifest(path.join(import.meta.dirname, "../../../bench/data/heldout-2024.jsonl"));
    expect(entries.length).toBeGreaterThanOrEqual(80);
    for (const entry of entries) {
      expect(entry.issue_url.startsWith(`https://github.com/${entry.repo}/issues/`)).toBe(true);
      expect(entry.base_commit).toMatch(/^[0-9a-f]{40}$/);
    }
    expect(new Set(entries.map((e) => e.instance_id)).size).toBe(entries.length);
  });
});
