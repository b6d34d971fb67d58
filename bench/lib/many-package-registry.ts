import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

/** A registry on 127.0.0.1 holding `count` packages `magis-dep-<i>` 1.0.0, each a few small files, and how to reach it. */
export interface ManyPackageRegistry {
  port: number;
  names: string[];
  /** package-lock.json's `packages` entries for all of them. */
  lockEntries(): Record<string, { version: string; resolved: string; integrity: string }>;
  close(): Promise<void>;
}

/**
 * Packs `count` packages in `dir` (a `package/` folder in a gzipped tar, as npm packs) and serves their packuments and
 * tarballs: a repository with as many dependencies as real ones have, whose `npm ci` is bound by installing packages.
 */
export async function startManyPackageRegistry(dir: string, count: number): Promise<ManyPackageRegistry> {
  const names = Array.from({ length: count }, (_, i) => `magis-dep-${i}`);
  const tarballs = new Map<string, Buffer>();
  for (const name of names) {
    const source = path.join(dir, name, "package");
    fs.mkdirSync(path.join(source, "lib"), { recursive: true });
    fs.writeFileSync(path.join(source, "package.json"), JSON.stringify({ name, version: "1.0.0", main: "index.js" }));
    fs.writeFileSync(path.join(source, "index.js"), `module.exports = require("./lib/value.js");\n`);
    fs.writeFileSync(path.join(source, "lib", "value.js"), `module.exports = ${JSON.stringify(name)};\n// ${"-".repeat(2000)}\n`);
    fs.writeFileSync(path.join(source, "README.md"), `# ${name}\n\n${"A package of the bench. ".repeat(40)}\n`);
    const file = path.join(dir, `${name}-1.0.0.tgz`);
    execFileSync("tar", ["-czf", file, "-C", path.dirname(source), "package"]);
    tarballs.set(name, fs.readFileSync(file));
  }
  let port = 0;
  const url = (name: string) => `http://127.0.0.1:${port}/${name}/-/${name}-1.0.0.tgz`;
  const integrity = (name: string) => `sha512-${crypto.createHash("sha512").update(tarballs.get(name)!).digest("base64")}`;
  const server = http.createServer((request, response) => {
    const tarball = /^\/([\w-]+)\/-\/[\w-]+-1\.0\.0\.tgz$/.exec(request.url ?? "");
    const name = tarball ? tarball[1]! : (request.url ?? "").slice(1);
    if (!tarballs.has(name)) {
      response.writeHead(404).end();
      return;
    }
    const packument = {
      name,
      "dist-tags": { latest: "1.0.0" },
      versions: { "1.0.0": { name, version: "1.0.0", dist: { tarball: url(name), integrity: integrity(name) } } },
    };
    response
      .writeHead(200, { "content-type": tarball ? "application/octet-stream" : "application/json" })
      .end(tarball ? tarballs.get(name) : JSON.stringify(packument));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  return {
    port,
    names,
    lockEntries: () => Object.fromEntries(names.map((name) => [`node_modules/${name}`, { version: "1.0.0", resolved: url(name), integrity: integrity(name) }])),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Writes and commits a Node repository that depends on every package of the registry, with a test that loads them all. */
export function writeManyPackageDemo(root: string, registry: ManyPackageRegistry, commit: (root: string, message: string) => void): void {
  const dependencies = Object.fromEntries(registry.names.map((name) => [name, "1.0.0"]));
  fs.mkdirSync(path.join(root, "test"), { recursive: true });
  fs.writeFileSync(path.join(root, "package.json"), JSON.stringify({ name: "many", version: "1.0.0", private: true, dependencies }, null, 2));
  const lock = {
    name: "many",
    version: "1.0.0",
    lockfileVersion: 3,
    requires: true,
    packages: { "": { name: "many", version: "1.0.0", dependencies }, ...registry.lockEntries() },
  };
  fs.writeFileSync(path.join(root, "package-lock.json"), JSON.stringify(lock, null, 2));
  fs.writeFileSync(
    path.join(root, "test", "all.test.js"),
    `const test = require("node:test");\nconst assert = require("node:assert");\nconst names = Object.keys(require("../package.json").dependencies);\n\ntest("every dependency loads", () => {\n  for (const name of names) assert.equal(require(name), name);\n});\n`,
  );
  commit(root, "many dependencies");
}
