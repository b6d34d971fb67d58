import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ProbotOctokit } from "probot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSessionAccess } from "../../../src/app/session-access.js";
import type { Octokit } from "../../../src/github/types.js";
import { createBareRepository } from "../../support/git-server.js";
import { fakeGitHub, type FakeGitHub, type FakeGitHubOptions } from "../../support/github-api.js";

const TOKEN = "ghs_sessionAccessToken0123456789abcdef";
const JOB = { installationId: 1, owner: "octo", repo: "demo" };
const ALICE = { login: "alice", id: 5001 };
let root: string;
let github: FakeGitHub;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-access-"));
  createBareRepository(root, "octo/demo", { "README.md": "Hello\n" });
});
afterEach(async () => {
  await github?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The decision over the nock fake, with a clock the test moves. */
function decide(extra: Partial<FakeGitHubOptions>, sessionsPublic: boolean) {
  github = fakeGitHub({
    owner: "octo",
    repo: "demo",
    installationId: 1,
    token: TOKEN,
    gitRoot: root,
    cloneUrl: "http://127.0.0.1:9/octo/demo.git",
    issue: { number: 5, title: "Typo", body: "" },
    ...extra,
  });
  const clock = { now: 0 };
  const installations: number[] = [];
  const access = createSessionAccess({
    auth: async (id) => {
      installations.push(id);
      return new ProbotOctokit({ auth: { token: TOKEN }, retry: { enabled: false }, throttle: { enabled: false } }) as unknown as Octokit;
    },
    sessionsPublic,
    now: () => clock.now,
  });
  return { access, clock, installations };
}

const permissionAsks = () => github.find("GET", /\/collaborators\/alice\/permission$/).length;

describe("a viewer's access to a job's session", () => {
  it("is asked through the job's installation and kept a minute, then asked again", async () => {
    const { access, clock, installations } = decide({ private: true, permissions: { alice: "admin" } }, false);
    expect(await access(ALICE, JOB)).toBe("write");
    clock.now += 59_000;
    expect(await access(ALICE, JOB)).toBe("write");
    expect(permissionAsks()).toBe(1);
    clock.now += 2_000;
    expect(await access(ALICE, JOB)).toBe("write");
    expect(permissionAsks()).toBe(2);
    expect(installations).toEqual([1, 1]);
  });

  it("keeps no failed question: GitHub's 502 reaches the caller, and the next visit asks again", async () => {
    const fault = { method: "GET", path: /\/collaborators\/alice\/permission$/, status: 502, times: 1 };
    const { access } = decide({ private: true, permissions: { alice: "read" }, faults: [fault] }, false);
    await expect(access(ALICE, JOB)).rejects.toMatchObject({ status: 502 });
    expect(await access(ALICE, JOB)).toBe("read");
  });

  it("with public sessions: everyone reads a public repository, a writer still steers, a private one stays closed", async () => {
    const open = decide({ private: false, permissions: { alice: "write" } }, true);
    expect(await open.access(null, JOB)).toBe("read");
    expect(await open.access(ALICE, JOB)).toBe("write");
    await github.close();
    const closed = decide({ private: true }, true);
    expect(await closed.access(null, JOB)).toBe("none");
    expect(await closed.access(ALICE, JOB)).toBe("none");
  });

  it("without public sessions, a signed-out visitor gets nothing and GitHub is not asked", async () => {
    const { access, installations } = decide({ private: false }, false);
    expect(await access(null, JOB)).toBe("none");
    expect(installations).toEqual([]);
    expect(github.requests).toEqual([]);
  });
});
