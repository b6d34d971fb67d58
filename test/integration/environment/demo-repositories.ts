import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { commitAll } from "./run-job-tests.js";

// The two repositories the environments' tests and bench:environments build environments for: a Python one with a
// src/ layout installed into a virtualenv, and a Node one whose npm ci fetches from a registry served on 127.0.0.1.

function write(root: string, relative: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  fs.writeFileSync(path.join(root, relative), text);
}

/** The Python repository's pyproject.toml at a version. */
export const pyproject = (version: string) => `[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "magis-demo"
version = "${version}"

[tool.setuptools.packages.find]
where = ["src"]
`;

/** Writes and commits the Python repository: its tests import `magis_demo` only once it is installed. */
export function writePythonDemo(root: string): void {
  write(root, "pyproject.toml", pyproject("0.1.0"));
  write(root, "src/magis_demo/__init__.py", "def double(x):\n    return 2 * x\n");
  write(root, "tests/test_demo.py", "from magis_demo import double\n\n\ndef test_double():\n    assert double(2) == 4\n");
  commitAll(root, "demo");
}

/** The Python repository's config: a virtualenv with the package installed editable (no registry), counted in the copy. */
export const PYTHON_CONFIG = {
  setup_command: "echo setup >> .setup-runs && python3 -m venv --system-site-packages .venv && .venv/bin/pip install -q --no-deps --no-build-isolation -e .",
  test_command: 'echo "setup ran $(wc -l < .setup-runs) time(s)" && .venv/bin/python -m pytest -q -p no:cacheprovider',
  test_timeout_seconds: 120,
};

/** A package registry on 127.0.0.1 holding `magis-pad` 1.0.0 and 1.0.1, one file each, and the requests it answered. */
export interface NpmRegistry {
  port: number;
  /** The paths requested, in order; empty it to count anew. */
  requests: string[];
  tarballUrl(version: string): string;
  integrity(version: string): string;
  close(): Promise<void>;
}

/** Starts the registry, packing its tarballs in `dir` as npm packs them (a `package/` folder in a gzipped tar). */
export async function startNpmRegistry(dir: string): Promise<NpmRegistry> {
  const tarballs = new Map(["1.0.0", "1.0.1"].map((version) => [version, packPad(dir, version)]));
  const requests: string[] = [];
  let port = 0;
  const tarballUrl = (version: string) => `http://127.0.0.1:${port}/magis-pad/-/magis-pad-${version}.tgz`;
  const integrity = (version: string) => `sha512-${crypto.createHash("sha512").update(tarballs.get(version)!).digest("base64")}`;
  const packument = () => ({
    name: "magis-pad",
    "dist-tags": { latest: "1.0.1" },
    versions: Object.fromEntries(
      [...tarballs.keys()].map((version) => [version, { name: "magis-pad", version, dist: { tarball: tarballUrl(version), integrity: integrity(version) } }]),
    ),
  });
  const server = http.createServer((request, response) => {
    requests.push(request.url ?? "");
    const tarball = /^\/magis-pad\/-\/magis-pad-(\d+\.\d+\.\d+)\.tgz$/.exec(request.url ?? "");
    const body = tarball ? tarballs.get(tarball[1]!) : request.url === "/magis-pad" ? Buffer.from(JSON.stringify(packument())) : undefined;
    if (!body) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": tarball ? "application/octet-stream" : "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  return {
    port,
    requests,
    tarballUrl,
    integrity,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function packPad(dir: string, version: string): Buffer {
  const source = path.join(dir, `pad-${version}`, "package");
  write(source, "package.json", JSON.stringify({ name: "magis-pad", version, main: "index.js" }));
  write(source, "index.js", `module.exports = (text, width) => String(text).padStart(width, "0");\nmodule.exports.version = "${version}";\n`);
  const file = path.join(dir, `magis-pad-${version}.tgz`);
  execFileSync("tar", ["-czf", file, "-C", path.dirname(source), "package"]);
  return fs.readFileSync(file);
}

/** Writes and commits the Node repository at a version of its one dependency: package.json, its lockfile, a test. */
export function writeNodeDemo(root: string, registry: NpmRegistry, version: string): void {
  const dependencies = { "magis-pad": version };
  write(root, "package.json", JSON.stringify({ name: "demo", version: "1.0.0", private: true, dependencies }, null, 2));
  const lock = {
    name: "demo",
    version: "1.0.0",
    lockfileVersion: 3,
    requires: true,
    packages: {
      "": { name: "demo", version: "1.0.0", dependencies },
      "node_modules/magis-pad": { version, resolved: registry.tarballUrl(version), integrity: registry.integrity(version) },
    },
  };
  write(root, "package-lock.json", JSON.stringify(lock, null, 2));
  write(
    root,
    "test/pad.test.js",
    `const test = require("node:test");\nconst assert = require("node:assert");\nconst pad = require("magis-pad");\n\ntest("pads with zeros", () => assert.equal(pad(7, 3), "007"));\ntest("magis-pad " + pad.version, () => {});\n`,
  );
  commitAll(root, `magis-pad ${version}`);
}

/** The Node repository's config: npm ci through the proxy, counted in the copy; maintenance reinstalls from npm's cache in HOME. */
export const nodeConfig = (registry: NpmRegistry) => ({
  environment: {
    setup: ["echo setup >> .setup-runs", `npm ci --registry http://127.0.0.1:${registry.port}/ --no-audit --no-fund`],
    maintenance: ["npm ci --offline --no-audit --no-fund"],
  },
  test_command: 'echo "setup ran $(wc -l < .setup-runs) time(s)"; node --test',
  test_timeout_seconds: 120,
});
