import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openEnvironmentShelf, scopeFolder } from "../../src/environment/index.js";
import { runInProcessGroup } from "../support/run-in-process-group.js";

const MAGIS = path.resolve(import.meta.dirname, "../integration/locate/run-magis.ts");
// By its path: the process runs in a temp folder, where `--import tsx` would not find the package.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

let work: string;
let repo: string;
let folder: string;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-env-cli-"));
  repo = path.join(work, "checkout");
  folder = path.join(work, "state", "environments");
  fs.mkdirSync(repo);
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

/** `magis env …` in a process of its own, from the sources, with only HOME in the state folder's place. */
async function magisEnv(...args: string[]) {
  const env = { PATH: process.env.PATH, HOME: path.join(work, "home"), MAGIS_ENV_DIR: folder };
  return runInProcessGroup(process.execPath, ["--import", TSX, MAGIS, "env", ...args], { cwd: work, env, timeoutMs: 60_000 });
}

/** Keeps an environment for `scope` as `magis resolve` on the checkout would: an 1.5 MB copy, its setup's hosts. */
async function keepFor(scope: string, key: string) {
  const shelf = openEnvironmentShelf({ folder, maxBytes: 100 * 1024 * 1024 });
  const built = fs.mkdtempSync(path.join(work, "built-"));
  fs.mkdirSync(path.join(built, "repo", ".venv"), { recursive: true });
  fs.mkdirSync(path.join(built, "home"));
  fs.writeFileSync(path.join(built, "repo", ".venv", "lib.so"), Buffer.alloc(1_572_864));
  const network = {
    reached: [{ host: "registry.npmjs.org:443", count: 3, bytes: 5000 }],
    refused: [{ host: "evil.example:443", count: 1, bytes: 0, why: "not in MAGIS_SETUP_ALLOW_HOSTS" }],
  };
  const record = {
    keyParts: { keyFiles: { "package-lock.json": "0".repeat(40) } },
    source: ".github/magis.yml environment" as const,
    builtAt: new Date(Date.now() - 2 * 3600_000).toISOString(),
    buildSeconds: 42.5,
    checkoutFiles: ["package.json"],
    network,
  };
  await shelf.keep({ scope: { repo: scope }, key, repoDir: path.join(built, "repo"), homeDir: path.join(built, "home"), record });
}

describe("magis env", () => {
  it("shows a checkout's kept environments with their source, key, size, age, setup time and hosts, and clears them", async () => {
    await keepFor(repo, "a".repeat(64));
    await keepFor(path.join(work, "other-checkout"), "b".repeat(64));
    const shown = await magisEnv("show", "--repo", "checkout");
    expect(shown).toMatchObject({ code: 0 });
    expect(shown.out).toBe(
      [
        `1 environment kept for ${repo} in ${folder}:`,
        "  aaaaaaaaaaaa  .github/magis.yml environment, 1.5 MB, built 2 h ago in 42.5 s, last used just now",
        "      key files: package-lock.json",
        "      setup reached registry.npmjs.org:443 (3×); refused evil.example:443 (not in MAGIS_SETUP_ALLOW_HOSTS)",
        "",
      ].join("\n"),
    );

    expect(await magisEnv("clear", "--repo", repo)).toEqual({ code: 0, out: `Removed 1 environment kept for ${repo} in ${folder}.\n` });
    expect(await magisEnv("show", "--repo", repo)).toEqual({ code: 0, out: `No environment is kept for ${repo} in ${folder}.\n` });
    // Another checkout's is left as it was.
    expect(
      openEnvironmentShelf({ folder, maxBytes: 1 })
        .list()
        .map((record) => record.key),
    ).toEqual(["b".repeat(64)]);
    // The copy is gone from the disk, not only set aside, before the command ends.
    expect(fs.readdirSync(path.join(folder, scopeFolder(repo)))).toEqual([]);
  });

  it("builds the checkout's declared environment and keeps it; a second build reuses it", async () => {
    fs.mkdirSync(path.join(repo, ".github"));
    fs.writeFileSync(path.join(repo, ".github", "magis.yml"), 'setup_command: "mkdir -p .venv && echo built >> .venv/marker"\n');
    fs.writeFileSync(path.join(repo, "setup.py"), "print('a package')\n");
    const first = await magisEnv("build", "--repo", repo);
    expect(first).toMatchObject({ code: 0, out: expect.stringMatching(/^Environment from \.github\/magis\.yml setup_command: built in /) });
    const [kept] = openEnvironmentShelf({ folder, maxBytes: 1 }).list({ repo });
    expect(kept).toMatchObject({ source: ".github/magis.yml setup_command", scope: { repo } });
    expect(fs.readFileSync(path.join(folder, scopeFolder(repo), kept!.key, "repo", ".venv", "marker"), "utf8")).toBe("built\n");
    // The checkout itself is untouched: the setup ran in a copy.
    expect(fs.existsSync(path.join(repo, ".venv"))).toBe(false);
    const second = await magisEnv("build", "--repo", repo);
    expect(second).toMatchObject({ code: 0, out: expect.stringContaining("reused") });
    expect((await magisEnv("show", "--repo", repo)).out).toContain("1 environment kept for");
  });

  it("says what is wrong with its arguments", async () => {
    expect(await magisEnv("show")).toMatchObject({ code: 2, out: expect.stringContaining("magis env: --repo is required") });
    expect(await magisEnv("shelve", "--repo", repo)).toMatchObject({ code: 2, out: expect.stringContaining("unknown env action 'shelve'") });
    expect(await magisEnv("show", "--repo", "nowhere")).toMatchObject({ code: 2, out: expect.stringContaining("--repo nowhere is not a directory") });
  });
});
