import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openEnvironmentShelf, type EnvironmentShelf } from "../../../src/environment/index.js";
import { bwrapSandbox, checkBwrap, DEFAULT_LIMITS } from "../../../src/sandbox/index.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import { commitAll, runJobTests } from "./run-job-tests.js";

// A Node repository whose setup runs `npm ci` through the setup's proxy against a package registry served here on
// 127.0.0.1 (the operator's allow list names it), in the real bubblewrap; later jobs reuse what the first one kept.
let work: string;
let root: string;
let registry: http.Server;
let port: number;
/** The registry's requests, by path. */
let requests: string[];
let tarballs: Map<string, Buffer>;
let sandbox: Sandbox;
let shelf: EnvironmentShelf;
let jobs = 0;

beforeEach(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-node-env-"));
  root = path.join(work, "checkout");
  requests = [];
  tarballs = new Map([
    ["1.0.0", packPad(work, "1.0.0")],
    ["1.0.1", packPad(work, "1.0.1")],
  ]);
  registry = http.createServer((request, response) => {
    requests.push(request.url ?? "");
    const tarball = /^\/magis-pad\/-\/magis-pad-(\d+\.\d+\.\d+)\.tgz$/.exec(request.url ?? "");
    const body = tarball ? tarballs.get(tarball[1]!) : request.url === "/magis-pad" ? Buffer.from(JSON.stringify(packument())) : undefined;
    if (!body) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": tarball ? "application/octet-stream" : "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve));
  port = (registry.address() as AddressInfo).port;
  const checked = checkBwrap({ limits: DEFAULT_LIMITS, setupNetwork: true, searchPath: process.env.PATH ?? "" });
  if (!checked.ok) throw new Error(`these tests need a working bubblewrap: ${checked.why}`);
  sandbox = bwrapSandbox({ program: checked.program, limits: DEFAULT_LIMITS, setupNetwork: true, setupAllowHosts: [`127.0.0.1:${port}`] });
  writeRepository("1.0.0");
  shelf = openEnvironmentShelf({ folder: path.join(work, "shelf"), maxBytes: 200 * 1024 * 1024 });
});
afterEach(async () => {
  await new Promise((resolve) => registry.close(resolve));
  await shelf.settled();
  fs.rmSync(work, { recursive: true, force: true });
});

/** A one-file package, `magis-pad@version`, packed as npm packs one (a `package/` folder in a gzipped tar). */
function packPad(dir: string, version: string): Buffer {
  const source = path.join(dir, `pad-${version}`, "package");
  fs.mkdirSync(source, { recursive: true });
  fs.writeFileSync(path.join(source, "package.json"), JSON.stringify({ name: "magis-pad", version, main: "index.js" }));
  fs.writeFileSync(
    path.join(source, "index.js"),
    `module.exports = (text, width) => String(text).padStart(width, "0");\nmodule.exports.version = "${version}";\n`,
  );
  const file = path.join(dir, `magis-pad-${version}.tgz`);
  execFileSync("tar", ["-czf", file, "-C", path.dirname(source), "package"]);
  return fs.readFileSync(file);
}
const integrity = (version: string) => `sha512-${crypto.createHash("sha512").update(tarballs.get(version)!).digest("base64")}`;
const tarballUrl = (version: string) => `http://127.0.0.1:${port}/magis-pad/-/magis-pad-${version}.tgz`;
function packument() {
  const versions = Object.fromEntries(
    [...tarballs.keys()].map((version) => [version, { name: "magis-pad", version, dist: { tarball: tarballUrl(version), integrity: integrity(version) } }]),
  );
  return { name: "magis-pad", "dist-tags": { latest: "1.0.1" }, versions };
}

/** The repository at a version of its one dependency: package.json, its lockfile, and a test that needs the package. */
function writeRepository(version: string) {
  const write = (relative: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), text);
  };
  const dependencies = { "magis-pad": version };
  write("package.json", JSON.stringify({ name: "demo", version: "1.0.0", private: true, dependencies }, null, 2));
  write(
    "package-lock.json",
    JSON.stringify(
      {
        name: "demo",
        version: "1.0.0",
        lockfileVersion: 3,
        requires: true,
        packages: {
          "": { name: "demo", version: "1.0.0", dependencies },
          "node_modules/magis-pad": { version, resolved: tarballUrl(version), integrity: integrity(version) },
        },
      },
      null,
      2,
    ),
  );
  write(
    "test/pad.test.js",
    `const test = require("node:test");\nconst assert = require("node:assert");\nconst pad = require("magis-pad");\n\ntest("pads with zeros", () => assert.equal(pad(7, 3), "007"));\ntest("magis-pad " + pad.version, () => {});\n`,
  );
  commitAll(root, `magis-pad ${version}`);
}

// The setup counts its runs in the copy and installs through the proxy; maintenance reinstalls from npm's cache in HOME.
const job = () =>
  runJobTests({
    root,
    config: {
      environment: {
        setup: ["echo setup >> .setup-runs", `npm ci --registry http://127.0.0.1:${port}/ --no-audit --no-fund`],
        maintenance: ["npm ci --offline --no-audit --no-fund"],
      },
      test_command: 'echo "setup ran $(wc -l < .setup-runs) time(s)"; node --test',
      test_timeout_seconds: 120,
    },
    sandbox,
    shelf,
    scratchDir: path.join(work, `job-${++jobs}`),
  });

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
      network: { reached: [expect.objectContaining({ host: `127.0.0.1:${port}` })], refused: [] },
    });
    expect(requests).toContain("/magis-pad/-/magis-pad-1.0.0.tgz");

    // The same lockfile: the kept node_modules and npm's cache in the kept home, `npm ci --offline` alone.
    requests = [];
    fs.writeFileSync(path.join(root, "README.md"), "demo\n");
    commitAll(root, "readme");
    const second = await job();
    expect(second.environment).toMatchObject({ how: "reused", steps: ["maintenance[1]"], key: first.environment!.key });
    expect(second.report?.before).toMatchObject({ outcome: "passed", counts: { passed: 2, failed: 0 } });
    expect(second.report?.before?.tail).toContain("setup ran 1 time(s)");
    expect(requests).toEqual([]);

    // A new lockfile: a new key, the setup again, the new version fetched.
    writeRepository("1.0.1");
    const third = await job();
    expect(third.environment).toMatchObject({ how: "built", steps: ["setup[1]", "setup[2]"], kept: { kept: true } });
    expect(third.environment!.key).not.toBe(first.environment!.key);
    expect(third.report?.before?.tail).toContain("magis-pad 1.0.1");
    expect(requests).toContain("/magis-pad/-/magis-pad-1.0.1.tgz");
  }, 180_000);
});
