// The global setup of `npm run test:image`: builds the Dockerfile's two targets once for every file, the App image and
// `universal` on top of it (one layer cache, so the second reuses the first's layers), and removes every image the
// builds made when the run ends, failed or not. Each missing piece fails the run with what to install.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startProcessGroup, type ProcessGroup } from "../support/process-group.js";
import { makeNodeBaseImage } from "./make-node-base-image.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
// As podman images counts them.
const MB = 1_000_000;

declare module "vitest" {
  export interface ProvidedContext {
    /** The App image (the Dockerfile's default target). */
    appImage: string;
    /** The `universal` target. */
    universalImage: string;
  }
}

/**
 * The image the Dockerfile builds on (its NODE_IMAGE): MAGIS_TEST_NODE_IMAGE (node:20-bookworm-slim where Docker Hub is
 * reachable), else one made here from Debian and this machine's Node, kept in podman's storage for the next run
 * (`podman rmi` it to make it afresh).
 */
const BASE = process.env.MAGIS_TEST_NODE_IMAGE || `localhost/magis-image-test-base:node-${process.version}`;

const started: ProcessGroup[] = [];
/** Every image id the builds printed: their layers, which `podman rmi` of the tags alone would leave. */
const made = new Set<string>();

/** Runs a command to its end, throwing with its output unless it exits 0; its output otherwise. */
export async function run(command: string, args: string[]): Promise<string> {
  const group = startProcessGroup(command, args, { cwd: ROOT, env: process.env });
  started.push(group);
  const { code, signal } = await group.exited;
  for (const [, id] of group.output().matchAll(/^(?:--> |--> Using cache )([0-9a-f]{11,64})$/gm)) made.add(id!);
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} failed (${signal ?? `exit ${code}`}):\n${group.output().slice(-6_000)}`);
  return group.output();
}

/** Throws, saying what to install, unless `command` runs. */
export function need(command: string, why: string, debianPackage: string): void {
  if (spawnSync(command, ["--version"], { stdio: "ignore" }).error) {
    throw new Error(`${command} is not installed: ${why}. Install it (Debian: apt-get install ${debianPackage}), then run npm run test:image again.`);
  }
}

/** The size podman gives an image, in bytes. */
export async function imageSize(image: string): Promise<number> {
  return Number((await run("podman", ["image", "inspect", "--format", "{{.Size}}", image])).trim());
}

/** Builds one target of the Dockerfile as `tag`, printing its build time and size. */
async function build(tag: string, target: "app" | "universal"): Promise<void> {
  const began = Date.now();
  // docker format: OCI images have no HEALTHCHECK. Chroot isolation: builds where podman cannot make containers.
  await run("podman", [
    "build",
    "--isolation=chroot",
    "--format=docker",
    "--pull=never",
    "--force-rm",
    "--build-arg",
    `NODE_IMAGE=${BASE}`,
    "--target",
    target,
    "-t",
    tag,
    ROOT,
  ]);
  const [size, base] = [await imageSize(tag), await imageSize(BASE)];
  console.log(
    `${tag} (--target ${target}): built in ${((Date.now() - began) / 1000).toFixed(0)} s, ${(size / MB).toFixed(0)} MB ` +
      `(${((size - base) / MB).toFixed(0)} MB above its base ${BASE}, ${(base / MB).toFixed(0)} MB)`,
  );
}

/** Builds both targets and hands their tags to the test files; the function it returns removes them. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const images = { appImage: `localhost/magis-image-test:${version}`, universalImage: `localhost/magis-image-test:${version}-universal` };
  const teardown = async () => {
    for (const group of started.splice(0)) await group.stop(0);
    spawnSync("podman", ["rmi", "--force", "--ignore", ...Object.values(images)], { stdio: "ignore" });
    // Last made first, since rmi refuses a layer while a later one stands on it; layers another image still stands
    // on (the base, an image of the same cache) stay.
    for (const id of [...made].reverse()) spawnSync("podman", ["rmi", "--ignore", id], { stdio: "ignore" });
  };
  try {
    need("podman", "npm run test:image builds the Dockerfile with it", "podman");
    if (process.getuid?.() !== 0) {
      throw new Error("npm run test:image mounts the built image and runs containers as root: run it as root, or as `podman unshare npm run test:image`");
    }
    if (spawnSync("podman", ["image", "exists", BASE]).status !== 0) {
      if (process.env.MAGIS_TEST_NODE_IMAGE) throw new Error(`MAGIS_TEST_NODE_IMAGE is '${BASE}', which podman does not hold: podman pull it first`);
      need("mmdebstrap", "without MAGIS_TEST_NODE_IMAGE, npm run test:image makes a Debian image with this machine's Node with it", "mmdebstrap");
      await makeNodeBaseImage(BASE, run);
    }
    await build(images.appImage, "app");
    await build(images.universalImage, "universal");
  } catch (error) {
    await teardown();
    throw error;
  }
  project.provide("appImage", images.appImage);
  project.provide("universalImage", images.universalImage);
  return teardown;
}
