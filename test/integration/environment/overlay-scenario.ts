import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parseConfig } from "../../../src/config.js";
import { openEnvironmentShelf } from "../../../src/environment/index.js";
import { listMounts } from "../../../src/lib/list-mounts.js";
import { openWorkbench } from "../../../src/pipeline/tests/open-workbench.js";
import type { EnvironmentReport, StageContext } from "../../../src/pipeline/types.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";

/** What a second job over a kept environment came to, for the tests to hold against what they expect. */
export interface OverlayScenario {
  first: EnvironmentReport | undefined;
  second: EnvironmentReport | undefined;
  /** Every entry of the kept environment (type, mode, owner, bytes' hash or link text), before the second job and after it. */
  keptBefore: string[];
  keptAfter: string[];
  /** The files in the second job's set-up layer once it was ready: what was written over the kept copy, not what was read. */
  upperFiles: string[];
  /** The folders in it: those copied up (a chown, a write inside), not those only read. */
  upperFolders: string[];
  /** What the upper layer the runs write into held once the runs were done: nothing, each restore mounts an empty one. */
  upperAfterRuns: string[];
  /** The set-up state's view of the copy (what the language servers read), folder by folder, and whether a write to it failed. */
  view: { env: string[]; lib: string[]; gone: string[]; changed: string; writeRefused: string | null };
  /** What the run that writes, deletes, chmods and plants a link printed, and what the next run then saw. */
  hostileTail: string;
  nextTail: string;
  /** The layered mounts left under the work folder once the second job's copy was removed. */
  mountsLeft: string[];
}

/**
 * Builds an environment in a first job, then in a second job over the kept one runs a command that writes, deletes and
 * chmods files of the environment and plants a link, then one that reads what the setup and the maintenance left.
 */
export async function runOverlayScenario(work: string, sandbox: Sandbox): Promise<OverlayScenario> {
  const root = path.join(work, "checkout");
  fs.mkdirSync(path.join(root, "src"), { recursive: true });
  fs.writeFileSync(path.join(root, "src", "app.txt"), "app\n");
  fs.writeFileSync(path.join(root, "src", "changed.txt"), "first\n");
  const shelf = openEnvironmentShelf({ folder: path.join(work, "shelf"), maxBytes: 64 * 1024 * 1024 });
  const config = parseConfig({
    environment: {
      setup: [
        "mkdir -p env/lib env/gone && echo library > env/lib/lib.txt && echo old > env/old.txt && echo g > env/gone/g.txt && echo run > env/run.sh && chmod 755 env/run.sh && ln -s lib/lib.txt env/link",
      ],
      // A file and a folder of the kept copy removed (a whiteout, an opaque folder), and a file added.
      maintenance: ["echo maintained > env/maintained.txt && rm env/old.txt && rm -rf env/gone && mkdir env/gone && echo fresh > env/gone/only.txt"],
    },
    test_command: "true",
  });
  let jobs = 0;
  const open = async () => {
    const ctx = {
      root,
      repoId: "octo/demo",
      config,
      commands: { allowed: true, sandbox, scratchDir: path.join(work, `job-${++jobs}`), environments: shelf, scope: { repo: "octo/demo" } },
    } as unknown as StageContext;
    const opened = await openWorkbench(ctx);
    if (!opened.ok) throw new Error(`the workbench did not open: ${opened.why}`);
    return opened.workbench;
  };
  const firstBench = await open();
  const first = await firstBench.settled();
  firstBench.dispose();
  await shelf.settled();
  const [kept] = shelf.list();
  if (!kept) throw new Error("the first job's environment was not kept");
  const keptDir = path.join(work, "shelf", "octo+demo", kept.key);
  const keptBefore = snapshot(keptDir);
  // A newer commit: one file of the checkout changed, the other as it was.
  fs.writeFileSync(path.join(root, "src", "changed.txt"), "second\n");

  const bench = await open();
  const layers = path.join(work, `job-${jobs}`, "repo.layers");
  const setUp = path.join(layers, "set-up");
  const upperFiles = fs.existsSync(setUp) ? listFiles(setUp) : [];
  const upperFolders = fs.existsSync(setUp) ? listFolders(setUp) : [];
  const hostile = await bench.run(
    [
      "echo changed >> env/lib/lib.txt",
      "rm env/run.sh",
      "chmod 600 env/lib/lib.txt",
      "chmod 700 env/lib",
      "rm env/link && ln -s /etc/passwd env/link",
      "ln -s /etc/shadow env/planted",
      "echo new > env/new.txt",
      "echo back > env/old.txt",
      "rm -rf env/gone",
      "echo home > $HOME/home.txt",
      "cat env/lib/lib.txt",
    ].join(" && "),
    [],
  );
  const next = await bench.run("cat env/lib/lib.txt env/run.sh env/maintained.txt; readlink env/link; ls env; ls env/lib env/gone", []);
  const upperAfterRuns = fs.readdirSync(path.join(layers, "upper"), { recursive: true }).map(String).sort();
  const view = readView(bench.hostPath("/workspace")!);
  const second = bench.environment;
  bench.dispose();
  await shelf.settled();
  const inside = (target: string) => target.startsWith(work + path.sep);
  return {
    first,
    second,
    keptBefore,
    keptAfter: snapshot(keptDir),
    upperFiles,
    upperFolders,
    upperAfterRuns,
    view,
    hostileTail: hostile.tail,
    nextTail: next.tail,
    mountsLeft: listMounts()
      .filter((mount) => inside(mount.target))
      .map((mount) => mount.target),
  };
}

/** Every entry under `dir` as a line: its path, kind, mode, owner, and its bytes' hash or its link's text. */
export function snapshot(dir: string): string[] {
  const lines: string[] = [];
  const walk = (relative: string) => {
    const at = path.join(dir, relative);
    const stat = fs.lstatSync(at);
    const mode = (stat.mode & 0o7777).toString(8);
    const owner = `${stat.uid}:${stat.gid}`;
    if (stat.isSymbolicLink()) lines.push(`${relative} link ${owner} -> ${fs.readlinkSync(at)}`);
    else if (stat.isFile()) lines.push(`${relative} file ${mode} ${owner} ${crypto.createHash("sha256").update(fs.readFileSync(at)).digest("hex")}`);
    else if (stat.isDirectory()) {
      lines.push(`${relative || "."} folder ${mode} ${owner}`);
      for (const name of fs.readdirSync(at).sort()) walk(path.join(relative, name));
    } else lines.push(`${relative} other`);
  };
  walk("");
  return lines.filter((line) => !line.startsWith("record.json "));
}

/** The set-up state's view at `dir`: the entries of env, env/lib and env/gone, and the error a write to it met. */
function readView(dir: string): OverlayScenario["view"] {
  const list = (relative: string) => fs.readdirSync(path.join(dir, relative)).sort();
  let writeRefused: string | null = null;
  try {
    fs.writeFileSync(path.join(dir, "env", "written-by-a-reader.txt"), "x\n");
  } catch (error) {
    writeRefused = (error as NodeJS.ErrnoException).code ?? String(error);
  }
  return {
    env: list("env"),
    lib: list("env/lib"),
    gone: list("env/gone"),
    changed: fs.readFileSync(path.join(dir, "src", "changed.txt"), "utf8"),
    writeRefused,
  };
}

function listFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

function listFolders(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}
