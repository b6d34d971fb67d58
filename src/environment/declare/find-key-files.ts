import fs from "node:fs";
import path from "node:path";

/** The manifests and lockfiles of the ecosystems MAGIS knows: a change to one can change what setup installs. */
const MANIFESTS = new Set([
  "package.json",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "Pipfile",
  "Pipfile.lock",
  "poetry.lock",
  "uv.lock",
  "go.mod",
  "go.sum",
  "Cargo.toml",
  "Cargo.lock",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "Gemfile",
  "Gemfile.lock",
  "composer.json",
  "composer.lock",
]);

/** `requirements.txt`, `requirements-dev.txt`, and any `.txt` in a `requirements/` folder. */
function isRequirements(name: string, folder: string): boolean {
  return /^requirements.*\.txt$/.test(name) || (path.posix.basename(folder) === "requirements" && name.endsWith(".txt"));
}

/** Folders that hold what was installed or built, or another project's files, never this one's manifests. */
const SKIPPED = new Set([
  "node_modules",
  "bower_components",
  "vendor",
  "third_party",
  "venv",
  "env",
  "site-packages",
  "target",
  "build",
  "dist",
  "__pycache__",
]);

/** How many folders below the root manifests are looked for (`a/b/c/package.json` is found), and the most entries read. */
const MAX_DEPTH = 3;
const MAX_ENTRIES = 20_000;

/**
 * The manifests and lockfiles found in the checkout, as sorted `/`-separated paths relative to `root`: at most
 * MAX_DEPTH folders down, never in hidden folders (`.git`, `.venv`, `.tox`) or vendored and built ones, never through a
 * link.
 */
export function findKeyFiles(root: string): string[] {
  const found: string[] = [];
  let entries = 0;
  const walk = (folder: string, depth: number) => {
    let listed: fs.Dirent[];
    try {
      listed = fs.readdirSync(path.join(root, folder), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of listed.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (++entries > MAX_ENTRIES) return;
      const relative = folder ? `${folder}/${entry.name}` : entry.name;
      if (entry.isFile() && (MANIFESTS.has(entry.name) || isRequirements(entry.name, folder))) found.push(relative);
      else if (entry.isDirectory() && depth < MAX_DEPTH && !entry.name.startsWith(".") && !SKIPPED.has(entry.name)) walk(relative, depth + 1);
    }
  };
  walk("", 0);
  return found.sort();
}
