import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants } from "node:zlib";
import { build, type Metafile } from "esbuild";
import { BUNDLED_WASM_DIR, grammarWasm, installedWasm, RUNTIME_WASM } from "../../src/edit/syntax/grammar-files.js";
import { mappedGrammars } from "../../src/edit/syntax/grammar-for-path.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The folder action.yml runs, committed: the bundle, the prompts, the grammars, the licenses. */
export const ACTION_DIR = "dist-action";

/** What one build wrote, in bytes. */
export interface ActionBuild {
  bundleBytes: number;
  grammarBytes: number;
  grammarCount: number;
  totalBytes: number;
}

// A bundle in ES module form runs the CommonJS packages it holds through `require`, which ES modules lack: the banner
// makes one for it, as Node's own createRequire.
const BANNER = 'import { createRequire as magisCreateRequire } from "node:module";\nconst require = magisCreateRequire(import.meta.url);';

/** The worker threads' entries, by the file name the bundle starts them from (beside index.js): the terms' counter. */
export const WORKER_ENTRIES: Record<string, string> = { "count-terms-worker.js": "src/pipeline/locate/count-terms-worker.ts" };

// Quality 5: 2.5 MB for the grammars' 38 MB in about a second; quality 11 saves 0.3 MB more and takes 90 s. The
// output is the same on Node 20 (brotli 1.1.0) and Node 24 (brotli 1.2.0).
const BROTLI_QUALITY = 5;

/**
 * Writes the Action into `out` (emptied first) from the sources: the same sources give the same bytes, so CI can
 * rebuild it and compare it with the committed one.
 *  1. index.js: src/action.ts and what it imports, bundled and minified; better-sqlite3 stays outside (a native addon
 *     built for one Node: the bundle uses node:sqlite where it is not installed, see sqlite-engines.ts); beside it, each
 *     worker thread's entry (WORKER_ENTRIES), bundled the same way, where index.js starts it from (see termWorkerEntry);
 *  2. package.json: marks index.js as an ES module, and the folder as the one prompts/ is found in;
 *  3. prompts/: the prompt files the agents are asked with;
 *  4. grammars/: the tree-sitter runtime and each grammar a path maps to, brotli-compressed (read by grammar-files.ts);
 *  5. licenses.txt: the license of each package the bundle and the grammars hold.
 */
export async function buildAction(out: string): Promise<ActionBuild> {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(path.join(out, BUNDLED_WASM_DIR), { recursive: true });

  // 1. The bundle.
  const metafiles = [await bundleForNode(path.join(ROOT, "src/action.ts"), path.join(out, "index.js"))];
  for (const [name, entry] of Object.entries(WORKER_ENTRIES)) metafiles.push(await bundleForNode(path.join(ROOT, entry), path.join(out, name)));

  // 2. and 3. The package marker and the prompts.
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
  const marker = { name: "magis-action", version, private: true, type: "module", description: "Written by npm run build:action; do not edit." };
  fs.writeFileSync(path.join(out, "package.json"), `${JSON.stringify(marker, null, 2)}\n`);
  fs.cpSync(path.join(ROOT, "prompts"), path.join(out, "prompts"), { recursive: true });

  // 4. The grammars.
  let grammarBytes = 0;
  const wasmFiles = [RUNTIME_WASM, ...mappedGrammars().map(grammarWasm)];
  for (const name of wasmFiles) {
    const source = installedWasm(name);
    const bytes = fs.readFileSync(source);
    const packed = brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    });
    fs.writeFileSync(path.join(out, BUNDLED_WASM_DIR, `${name}.br`), packed);
    grammarBytes += packed.length;
  }

  // 5. The licenses.
  const packages = new Set([...metafiles.flatMap(bundledPackages), ...wasmFiles.map((name) => packageOf(path.relative(ROOT, installedWasm(name))))]);
  fs.writeFileSync(path.join(out, "licenses.txt"), renderLicenses([...packages].sort()));

  const bundleBytes = fs.statSync(path.join(out, "index.js")).size;
  return { bundleBytes, grammarBytes, grammarCount: wasmFiles.length - 1, totalBytes: folderBytes(out) };
}

/**
 * Bundles `entry` and what it imports into one minified ES module for Node, `outfile`, as the Action's index.js is
 * bundled (tests bundle their own entries the same way). Paths in it are relative to the repository, so the folder it
 * is built in changes nothing.
 */
export async function bundleForNode(entry: string, outfile: string): Promise<Metafile> {
  const { metafile } = await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minify: true,
    legalComments: "none",
    external: ["better-sqlite3"],
    // jsonc-parser's main entry is a UMD build whose require() calls an ES module bundle cannot make: take its ES build.
    alias: { "jsonc-parser": "jsonc-parser/lib/esm/main.js" },
    banner: { js: BANNER },
    metafile: true,
    logLevel: "warning",
  });
  return metafile;
}

/** The folder of the package a path under node_modules/ is in (`node_modules/@scope/name`), or null. */
function packageOf(file: string): string {
  const parts = file.split(/[\\/]/);
  const at = parts.lastIndexOf("node_modules");
  if (at < 0) throw new Error(`${file} is not in node_modules`);
  return parts.slice(0, at + (parts[at + 1]!.startsWith("@") ? 3 : 2)).join("/");
}

/** The packages of which some code is in the bundle (one tree-shaken to nothing is not). */
function bundledPackages(metafile: Metafile): string[] {
  return Object.values(metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([input, used]) => input.includes("node_modules/") && used.bytesInOutput > 0)
      .map(([input]) => packageOf(input)),
  );
}

const LICENSE_FILE = /^(licen[cs]e|copying)(\.(md|txt))?$/i;

/** Each package's name, version and license, with the license's text once for all the packages that share it. */
function renderLicenses(folders: string[]): string {
  const byText = new Map<string, Set<string>>();
  for (const folder of folders) {
    const meta = JSON.parse(fs.readFileSync(path.join(ROOT, folder, "package.json"), "utf8")) as { name: string; version: string; license?: string };
    const file = fs.readdirSync(path.join(ROOT, folder)).find((name) => LICENSE_FILE.test(name));
    const text = file ? fs.readFileSync(path.join(ROOT, folder, file), "utf8").trim() : "(no license file in the package)";
    const names = byText.get(text) ?? new Set<string>();
    byText.set(text, names.add(`${meta.name} ${meta.version} (${meta.license ?? "no license named"})`));
  }
  const sections = [...byText].map(([text, names]) => `${[...names].sort().join("\n")}\n\n${text}\n`).sort();
  return ["The packages bundled in index.js and grammars/, with their licenses.\n", ...sections].join(`\n${"-".repeat(78)}\n\n`);
}

function folderBytes(folder: string): number {
  return fs
    .readdirSync(folder, { recursive: true, encoding: "utf8" })
    .map((name) => fs.statSync(path.join(folder, name)))
    .filter((stat) => stat.isFile())
    .reduce((sum, stat) => sum + stat.size, 0);
}
