import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import nock from "nock";
import { ProbotOctokit } from "probot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../../../src/config.js";
import { commitThroughApi } from "../../../../src/github/publish/commit-through-api.js";
import type { Octokit } from "../../../../src/github/types.js";
import { createLlm } from "../../../../src/llm/client.js";
import { resolveIssue } from "../../../../src/pipeline/resolve-issue.js";
import { withShallowClone, type GitRemote } from "../../../../src/git/clone-repository.js";
import { createBareRepository, gitEnv, startGitServer, type GitServer } from "../../../support/git-server.js";
import { fakeGitHub, type FakeGitHub } from "../../../support/github-api.js";
import { startScriptedModel, type ScriptedModel } from "../../../support/scripted-model.js";
import { scriptGreeting } from "../../resolve/script-greeting.js";
import { modelSettings } from "../../../support/model-settings.js";

const token = "ghs_encodingtoken1234567890";
const latin1 = (text: string): Buffer => Buffer.from(text, "latin1");
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
let root: string;
let server: GitServer;
let model: ScriptedModel;
let remote: GitRemote;
let github: FakeGitHub;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-encodings-"));
  createBareRepository(root, "octo/enc", {
    "notes.py": latin1("# caf\xe9 au lait\nprint('hello')\n"),
    "src/app.js": Buffer.concat([BOM, Buffer.from("// app\r\nexport const greeting = 'hello';\r\n", "utf8")]),
    "README.md": "# demo\n\nGreets.\n",
    "src/other.js": "export const other = 1;\n",
  });
  server = await startGitServer(root, { token });
  model = await startScriptedModel();
  remote = { url: `${server.url}/octo/enc.git`, token };
  // GitHub's Git Data API, writing the objects into the same bare repository.
  github = fakeGitHub({
    owner: "octo",
    repo: "enc",
    installationId: 1,
    token,
    gitRoot: root,
    cloneUrl: remote.url,
    issue: { number: 1, title: "Greeting", body: "" },
  });
});
afterAll(async () => {
  nock.cleanAll();
  await model?.close();
  await server?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** A file of a branch as the real git stores it, bytes and all. */
const committed = (branch: string, file: string): Buffer =>
  execFileSync("git", ["--git-dir", path.join(root, "octo/enc.git"), "show", `${branch}:${file}`], { env: gitEnv() });

describe("the bot's commit keeps each file's encoding", () => {
  it("resolves an issue on a clone and commits a Latin-1 and a byte-order-marked file with every untouched byte as it was", async () => {
    scriptGreeting(model, {
      "notes.py": {
        locate: { path: "notes.py", ranges: [{ start: 2, end: 2, why: "the greeting" }] },
        write: [{ old: "print('hello')", new: "print('bye')" }],
      },
      "src/app.js": {
        locate: { path: "src/app.js", ranges: [{ start: 1, end: 2, why: "the greeting" }] },
        write: [{ old: "\uFEFF// app\nexport const greeting = 'hello';", new: "\uFEFF// app\nexport const greeting = 'bye';" }],
      },
    });
    const config = parseConfig({});
    await withShallowClone(remote, "main", async (checkout) => {
      const llm = createLlm({ config, settings: modelSettings({ OPENAI_BASE_URL: model.url, MAGIS_MODEL: "scripted", MAGIS_LLM_MAX_RETRIES: "0" }) });
      const ctx = { root: checkout.dir, repoId: "octo/enc", config, llm, now: () => Date.now(), onProgress: () => {} };
      const result = await resolveIssue(
        ctx,
        { title: "The greeting is wrong", body: "notes.py and src/app.js say hello; they must say bye.", hints: [] },
        null,
      );
      if ("question" in result) throw new Error(`the Manager asked instead: ${result.question}`);
      const octokit = new ProbotOctokit({ auth: { token }, retry: { enabled: false }, throttle: { enabled: false } }) as Octokit;
      await commitThroughApi({
        octokit,
        repo: { owner: "octo", repo: "enc" },
        repositoryId: github.repositoryId,
        checkout,
        branch: "magis/issue-1",
        changes: result.changes,
        message: "Say bye",
        lease: { head: null, force: false },
        guard: { prefix: "magis/", defaultBranch: "main", protectedPaths: [] },
      });
    });
    expect(model.problems).toEqual([]);
    expect(committed("magis/issue-1", "notes.py")).toEqual(latin1("# caf\xe9 au lait\nprint('bye')\n"));
    expect(committed("magis/issue-1", "src/app.js")).toEqual(Buffer.concat([BOM, Buffer.from("// app\r\nexport const greeting = 'bye';\r\n", "utf8")]));
  });
});
