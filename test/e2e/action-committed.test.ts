import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ACTION_NODE, ACTION_NODE_HAS_SQLITE, ACTION_NODE_VERSION, copyCommittedAction, inputVariables, readActionYml } from "../support/action-copy.js";
import { runInProcessGroup } from "../support/run-in-process-group.js";
import { labeledPayload } from "./payloads.js";

const TOKEN = "ghs_committedActionToken0123456789abcd";

// The committed action as a runner downloads it, copied with nothing beside it: action.yml and dist-action/, no
// node_modules anywhere above (the system's temp folder), started as the runner starts a node24 action: `node
// <runs.main>`, on ACTION_NODE (this Node, or a Node 24 through MAGIS_ACTION_NODE).
describe("the committed action, copied alone and started by node", () => {
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-committed-action-"));
    fs.mkdirSync(path.join(dir, "action"));
    copyCommittedAction(path.join(dir, "action"));
  });

  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const start = (env: NodeJS.ProcessEnv) =>
    runInProcessGroup(ACTION_NODE, [path.join(dir, "action", readActionYml().runs.main!)], { cwd: dir, env, timeoutMs: 60_000 });

  it("holds action.yml and the bundle's folder only, and without the runner's variables names each one missing and exits 2", async () => {
    expect(fs.readdirSync(path.join(dir, "action")).sort()).toEqual(["action.yml", "dist-action"]);
    const copied = fs.readdirSync(path.join(dir, "action"), { recursive: true, encoding: "utf8" });
    expect(copied.filter((name) => name.split(path.sep).includes("node_modules"))).toEqual([]);

    const { code, out } = await start({ PATH: process.env.PATH, HOME: process.env.HOME });
    expect(out).toBe(
      "magis action: magis action needs the environment of a GitHub Actions step: GITHUB_EVENT_NAME is not set; GITHUB_EVENT_PATH is not set; " +
        "GITHUB_REPOSITORY is not set; GITHUB_TOKEN is not set. Run it as the action's step (see examples/github-action/magis.yml), with `github_token` " +
        "set (default: the workflow's token).\n",
    );
    expect(code).toBe(2);
  });

  // The store is opened before GitHub is asked anything: a Node with node:sqlite (22.13 and later, the runner's 24)
  // opens it from the copy alone and goes on to GitHub, which refuses the token here; a Node without it (20) stops at
  // the store with a message saying what to run it on. Either way the run leaves nothing in RUNNER_TEMP.
  it(`in a real run on Node ${ACTION_NODE_VERSION}: opens its store with this Node's SQLite or says which Node it needs, exits 1 and leaves nothing behind`, async () => {
    const requests: string[] = [];
    const github = http.createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ message: "Bad credentials" }));
    });
    await new Promise<void>((resolve) => github.listen(0, "127.0.0.1", resolve));
    try {
      const runnerTemp = path.join(dir, "runner-temp");
      fs.mkdirSync(runnerTemp);
      const eventPath = path.join(dir, "event.json");
      fs.writeFileSync(eventPath, JSON.stringify(labeledPayload({ installationId: null })));
      const inputs = inputVariables(readActionYml(), { openai_api_key: "sk-committed-action-key-0123" }, (text) => text.replace("${{ github.token }}", TOKEN));
      const { code, out } = await start({
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        GITHUB_EVENT_NAME: "issues",
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_REPOSITORY: "Codertocat/Hello-World",
        GITHUB_API_URL: `http://127.0.0.1:${(github.address() as AddressInfo).port}`,
        GITHUB_RUN_ID: "7",
        RUNNER_TEMP: runnerTemp,
        ...inputs,
      });
      if (ACTION_NODE_HAS_SQLITE) {
        expect(out).toContain("deciding about it failed: Bad credentials");
        expect(requests).toEqual(["GET /repos/Codertocat/Hello-World/contents/.github%2Fmagis.yml"]);
      } else {
        expect(out).toContain("magis action: MAGIS keeps its records in SQLite and finds no SQLite engine in this Node (better-sqlite3: Cannot find");
        expect(out).toContain(`node:sqlite: not built into Node ${ACTION_NODE_VERSION}, only into Node 22.13 and later`);
        expect(out).toContain("Run it on Node 22.13 or later (the Action declares node24, which has node:sqlite)");
        expect(requests).toEqual([]);
      }
      expect(out).not.toMatch(/\n\s+at /);
      expect(out).not.toContain(TOKEN);
      expect(code).toBe(1);
      expect(fs.readdirSync(runnerTemp)).toEqual([]);
    } finally {
      await new Promise((resolve) => github.close(resolve));
    }
  });
});
