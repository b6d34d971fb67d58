import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openEnvironmentShelf, type EnvironmentShelf } from "../../../src/environment/index.js";
import { bwrapSandbox, checkBwrap, DEFAULT_LIMITS } from "../../../src/sandbox/index.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import { nodeConfig, startNpmRegistry, writeNodeDemo, type NpmRegistry } from "./demo-repositories.js";
import { runJobTests } from "./run-job-tests.js";

// A Node repository whose setup runs `npm ci` through the setup's proxy against a package registry served here on
// 127.0.0.1 (the operator's allow list names it), in the real bubblewrap; later jobs reuse what the first one kept.
let work: string;
let root: string;
let registry: NpmRegistry;
let sandbox: Sandbox;
let shelf: EnvironmentShelf;
let jobs = 0;

beforeEach(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-node-env-"));
  root = path.join(work, "checkout");
  registry = await startNpmRegistry(work);
  const checked = checkBwrap({ limits: DEFAULT_LIMITS, setupNetwork: true, searchPath: process.env.PATH ?? "" });
  if (!checked.ok) throw new Error(`these tests need a working bubblewrap: ${checked.why}`);
  sandbox = bwrapSandbox({ program: checked.program, limits: DEFAULT_LIMITS, setupNetwork: true, setupAllowHosts: [`127.0.0.1:${registry.port}`] });
  writeNodeDemo(root, registry, "1.0.0");
  shelf = openEnvironmentShelf({ folder: path.join(work, "shelf"), maxBytes: 200 * 1024 * 1024 });
});
afterEach(async () => {
  await registry.close();
  await shelf.settled();
  fs.rmSync(work, { recursive: true, force: true });
});

const job = (config: Record<string, unknown> = nodeConfig(registry)) =>
  runJobTests({ root, config, sandbox, shelf, scratchDir: path.join(work, `job-${++jobs}`) });
const tree = (dir: string) => (fs.readdirSync(dir, { recursive: true }) as string[]).sort();

describe("a Node repository's environment", () => {
  it("is built through the proxy in the first job, reused by the second (only maintenance, offline), rebuilt for a new lockfile", async () => {
    const first = await job();
    expect(first.environment?.failed, first.environment?.failedStep?.run.tail).toBeUndefined();
    expect(first.report?.before).toMatchObject({ outcome: "passed", counts: { passed: 2, failed: 0 } });
    expect(first.report?.before?.tail).toContain("magis-pad 1.0.0");
    expect(first.environment).toMatchObject({
      source: ".github/magis.yml environment",
      how: "built",
      steps: ["setup[1]", "setup[2]"],
      kept: { kept: true },
      network: { reached: [expect.objectContaining({ host: `127.0.0.1:${registry.port}` })], refused: [] },
    });
    expect(registry.requests).toContain("/magis-pad/-/magis-pad-1.0.0.tgz");

    // The same lockfile: the kept node_modules and npm's cache in the kept home, `npm ci --offline` alone.
    registry.requests.length = 0;
    fs.writeFileSync(path.join(root, "README.md"), "demo\n");
    const second = await job();
    expect(second.environment).toMatchObject({ how: "reused", steps: ["maintenance[1]"], key: first.environment!.key });
    expect(second.report?.before).toMatchObject({ outcome: "passed", counts: { passed: 2, failed: 0 } });
    expect(second.report?.before?.tail).toContain("setup ran 1 time(s)");
    expect(registry.requests).toEqual([]);

    // A new lockfile: a new key, the setup again, the new version fetched.
    writeNodeDemo(root, registry, "1.0.1");
    const third = await job();
    expect(third.environment).toMatchObject({ how: "built", steps: ["setup[1]", "setup[2]"], kept: { kept: true } });
    expect(third.environment!.key).not.toBe(first.environment!.key);
    expect(third.report?.before?.tail).toContain("magis-pad 1.0.1");
    expect(registry.requests).toContain("/magis-pad/-/magis-pad-1.0.1.tgz");
  }, 180_000);

  it("stays as it was set up when a job's tests delete node_modules' files and write into them", async () => {
    await job();
    const [record] = shelf.list({ repo: "octo/demo" });
    const kept = path.join(work, "shelf", "octo+demo", record!.key);
    const before = tree(kept);
    const pad = path.join(kept, "repo", "node_modules", "magis-pad", "index.js");
    const text = fs.readFileSync(pad, "utf8");
    const vandal = await job({
      ...nodeConfig(registry),
      test_command:
        "echo 'module.exports = () => \"x\"' > node_modules/magis-pad/index.js && rm -rf node_modules/.package-lock.json $HOME/.npm && echo '# pass 1'",
    });
    expect(vandal.environment).toMatchObject({ how: "reused" });
    expect(vandal.report?.before?.outcome).toBe("passed");
    expect(tree(kept)).toEqual(before);
    expect(fs.readFileSync(pad, "utf8")).toBe(text);
    const next = await job();
    expect(next.environment).toMatchObject({ how: "reused", steps: ["maintenance[1]"] });
    expect(next.report?.before).toMatchObject({ outcome: "passed", counts: { passed: 2, failed: 0 } });
  }, 180_000);

  it("gives the network to the setup alone: the tests reach neither the registry nor the proxy", async () => {
    const reach = `node -e "require('http').get('http://127.0.0.1:${registry.port}/magis-pad', () => process.exit(0)).on('error', (e) => { console.log(e.code); process.exit(3); })"`;
    const tests = await job({ ...nodeConfig(registry), test_command: `echo "proxy: \${HTTP_PROXY:-none}"; ${reach}` });
    expect(tests.environment).toMatchObject({ how: "built", network: { reached: [expect.objectContaining({ host: `127.0.0.1:${registry.port}` })] } });
    expect(tests.report?.before).toMatchObject({ outcome: "failed", exitCode: 3 });
    expect(tests.report?.before?.tail).toMatch(/^proxy: none\nECONNREFUSED$/);
  }, 120_000);
});
