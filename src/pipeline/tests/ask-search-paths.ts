import fs from "node:fs";
import path from "node:path";
import type { ServerEnvironment } from "../../language-servers/index.js";
import type { TestRun } from "../types.js";
import type { ChangedFile } from "./open-workbench.js";

/** What askSearchPaths needs of a workbench: a run in its sandbox, and where a path the commands see is on the host. */
export interface SetUpCopy {
  run(command: string, files: readonly ChangedFile[]): Promise<TestRun>;
  /** The set-up state's host copy of a path the commands see (the copy's, the home's), or null outside those. */
  hostPath(inside: string): string | null;
}

/**
 * Prints, inside the sandbox, where the environment keeps its packages: the copy's `node_modules` folders (not those
 * inside another), Python's `sys.path` as the environment's own interpreter has it (`.venv` or `venv` when the copy
 * has one, else the commands' `python3`), then the copy's folder and HOME as the commands see them. Each on a line of
 * its own after a marker, at the end of the output (whatever a `.pth` file prints comes before).
 */
export const ASK_SEARCH_PATHS = [
  `find "$PWD" -name .git -prune -o -name node_modules -type d -prune -print 2>/dev/null | head -n 50 | sed 's/^/magis-node-modules /'`,
  "py=python3",
  'for c in .venv/bin/python venv/bin/python; do if [ -x "$c" ]; then py=$c; break; fi; done',
  `"$py" -c 'import sys, json; print("magis-python-path " + json.dumps(sys.path))' 2>/dev/null`,
  `printf 'magis-where %s\\nmagis-home %s\\n' "$PWD" "$HOME"`,
].join("\n");

/**
 * The search paths of the workbench's environment for the language servers on the checkout `root`: asked inside the
 * sandbox (no program of the repository runs here), each mapped to the set-up state's host copy. Only what lies in the
 * copy or its home is kept (the system's Python folders are dropped: Pyright has its own standard library), and a
 * folder of the copy that the checkout has too is the checkout's. Null when the sandbox could not say.
 */
export async function askSearchPaths(workbench: SetUpCopy, root: string): Promise<ServerEnvironment | null> {
  const run = await workbench.run(ASK_SEARCH_PATHS, []);
  // The interpreter is the repository's (what its setup left at .venv/bin/python): a run that did not end as the
  // script does, its last line printed, says nothing to trust.
  return run.outcome === "passed" ? readSearchPaths(run.tail, workbench.hostPath.bind(workbench), root) : null;
}

/** Where the sandbox shows the copy and the home: what the printed lines must say (anything else was forged). */
const COPY = "/workspace";
const HOME = "/tmp/home";

/** The environment the printed `output` of ASK_SEARCH_PATHS names, mapped to the host by `hostPath` (see askSearchPaths). */
export function readSearchPaths(output: string, hostPath: (inside: string) => string | null, root: string): ServerEnvironment | null {
  const lines = output.split("\n");
  const last = (marker: string) =>
    [...lines]
      .reverse()
      .find((line) => line.startsWith(`${marker} `))
      ?.slice(marker.length + 1);
  // The roots are the copy's and the home's set-up state, never folders the output names: what the repository's
  // interpreter printed may lead anywhere, and only what lies (links resolved) inside these is shown to the servers.
  const where = last("magis-where");
  if (where !== COPY) return null;
  const below = (p: string) => (p.startsWith(`${where}/`) ? p.slice(where.length + 1) : null);
  const roots = [hostPath(COPY), hostPath(HOME)].filter((dir): dir is string => dir !== null);

  const python: string[] = [];
  for (const inside of readPythonPath(last("magis-python-path"))) {
    if (!path.posix.isAbsolute(inside) || inside === where) continue;
    const relative = below(path.posix.normalize(inside));
    // The checkout's own folder (an editable install's `src`): the servers read the checkout's files, not the copy's.
    const own = relative !== null && isFolder(path.join(root, relative)) ? path.join(root, relative) : null;
    const mapped = own ?? hostPath(inside);
    if (mapped && !python.includes(mapped)) python.push(mapped);
  }
  const nodeModules = lines
    .filter((line) => line.startsWith("magis-node-modules "))
    .flatMap((line) => {
      const inside = line.slice("magis-node-modules ".length);
      const at = below(inside);
      const from = at === null ? null : hostPath(inside);
      return at !== null && from ? [{ from, at }] : [];
    });
  return { roots, python, nodeModules };
}

/** The printed `sys.path`, or nothing when Python did not run or printed something else. */
function readPythonPath(json: string | undefined): string[] {
  if (!json) return [];
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((p): p is string => typeof p === "string") : [];
  } catch {
    return [];
  }
}

/** Whether `at` is a folder of the checkout, no link on its last step. */
function isFolder(at: string): boolean {
  try {
    return fs.lstatSync(at).isDirectory();
  } catch {
    return false;
  }
}
