// A Debian bookworm image with this machine's Node and npm, for building the Dockerfile where no registry of images
// is reachable (the Dockerfile's NODE_IMAGE defaults to node:20-bookworm-slim from Docker Hub). Debian's packages
// and the npm registry must be reachable: the build stage installs a compiler with apt and the dependencies with npm.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Where this machine's Node keeps npm and its C headers (node-gyp builds better-sqlite3 against them, offline). */
function hostNode(): { node: string; npm: string; headers: string } {
  const prefix = path.resolve(path.dirname(process.execPath), "..");
  const found = { node: process.execPath, npm: path.join(prefix, "lib", "node_modules", "npm"), headers: path.join(prefix, "include", "node") };
  for (const [what, place] of Object.entries(found)) {
    if (!fs.existsSync(place)) throw new Error(`this machine's Node has no ${what} at ${place}: install Node 20 with npm and its headers (Debian: nodejs)`);
  }
  return found;
}

/**
 * Builds image `tag` with mmdebstrap (minbase, plus passwd for useradd): this machine's node, npm and Node headers,
 * and an npm configuration that builds native modules against those headers and trusts what this machine's npm
 * trusts (its `cafile`, which a network with an intercepting proxy needs). Takes `mmdebstrap`, as root (or in
 * `podman unshare`). `run` runs a command to its end, throwing with its output if it fails.
 */
export async function makeNodeBaseImage(tag: string, run: (command: string, args: string[]) => Promise<string>): Promise<void> {
  const { node, npm, headers } = hostNode();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-image-base-"));
  try {
    const npmrc = ["nodedir=/usr"];
    const cafile = (await run("npm", ["config", "get", "cafile"])).trim();
    const uploads: [string, string][] = [];
    if (cafile && cafile !== "null" && cafile !== "undefined") {
      npmrc.push("cafile=/usr/etc/host-ca.crt");
      uploads.push([cafile, "/usr/etc/host-ca.crt"]);
    }
    fs.writeFileSync(path.join(work, "npmrc"), `${npmrc.join("\n")}\n`);
    uploads.push([path.join(work, "npmrc"), "/usr/etc/npmrc"]);
    const tarball = path.join(work, "base.tar");
    await run("mmdebstrap", [
      "--quiet",
      "--variant=minbase",
      "--include=passwd",
      `--customize-hook=mkdir -p "$1/usr/lib/node_modules" "$1/usr/include" "$1/usr/etc"`,
      `--customize-hook=copy-in ${node} /usr/bin`,
      `--customize-hook=copy-in ${npm} /usr/lib/node_modules`,
      `--customize-hook=copy-in ${headers} /usr/include`,
      ...uploads.map(([from, to]) => `--customize-hook=upload ${from} ${to}`),
      `--customize-hook=ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/bin/npm"; ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/bin/npx"`,
      "bookworm",
      tarball,
    ]);
    await run("podman", ["import", "--quiet", "--change", 'CMD ["node"]', tarball, tag]);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
