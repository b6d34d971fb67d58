/**
 * Language-server benchmark (`npm run bench:diagnostics`): would the semantic check refuse real changes, and does it
 * catch real mistakes?
 *
 * 1. Real changes: the gold patches of the SWE-bench Lite dev split (bench data in /work/shared/bench, repositories
 *    mirrored as bare git folders, see docs/evaluation.md), and the latest commits of those and three more Python
 *    mirrors (pytest, sphinx, sympy) that modify one to three Python files. Each base commit is unpacked with
 *    `git archive` into a scratch folder, and Pyright checks each changed file before and after, as an attempt is.
 * 2. False refusals: the share of changes the check would refuse with the default `diagnostics.refuse_rules`.
 * 3. Caught mistakes: each change again with one injected mistake (bench/lib/inject-mistakes.ts: an added line's name
 *    renamed to an undefined one, a call of a function the checkout defines given one argument more than it takes, an
 *    import removed while still used); the share refused, per kind.
 * 4. Every error-level rule the changes add, with how often on real changes and on mistakes: the data the default
 *    rules are chosen from.
 * 5. Third-party packages: a wrong call into a package the environment installed (the bench's own Python package in
 *    a virtualenv, its own typed Node package in node_modules, bench/fixtures/third-party) and the xarray change that
 *    imports pyarrow (installed from the machine's local wheel index), each checked without the environment (as a job
 *    without one is) and with it (as the job's servers see it once the workbench asked its search paths).
 * 6. Time and memory on sympy (about 2,000 files, 1,600 of them Python): a cold start with the first check of one file,
 *    then warm checks (the untouched and the new text), later attempts at it (the new text alone, as a job checks
 *    them), and the references of a class the repository uses everywhere (the first search reads the whole workspace);
 *    the server's resident memory (its process and all its descendants) after them.
 *
 *   npm run bench:diagnostics [-- --commits 6] [--mirrors /work/.mirror] [--data FILE] [--speed-only] [--third-party-only]
 *     [--request-seconds 120]
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { applyPatch, parsePatch } from "diff";
import { configSchema } from "../src/config.js";
import { openLanguageServers, startLanguageServer, type ChangeCheck, type ServerEnvironment } from "../src/language-servers/index.js";
import { injectMistakes, type MistakeKind } from "./lib/inject-mistakes.js";
import { printTable } from "./lib/print-table.js";

const { values } = parseArgs({
  options: {
    commits: { type: "string", default: "6" },
    mirrors: { type: "string", default: "/work/.mirror" },
    data: { type: "string", default: "/work/shared/bench/swe-bench-lite-dev.jsonl" },
    "speed-only": { type: "boolean", default: false },
    "third-party-only": { type: "boolean", default: false },
    "request-seconds": { type: "string", default: "120" },
  },
});
const here = path.dirname(fileURLToPath(import.meta.url));
const resultFile = path.join(here, "results", "diagnostics.json");
const defaults = configSchema.parse({}).diagnostics;
const refusing = new Set(defaults.refuse_rules.python);
const refusingTs = new Set(defaults.refuse_rules.typescript);
// A loaded machine may need a longer bound for one check (`--request-seconds`): past it the run stops.
const requestSeconds = Number(values["request-seconds"]);
if (!(requestSeconds > 0)) throw new Error(`--request-seconds must be a positive number of seconds, not "${values["request-seconds"]}"`);
const limits = { startMs: 60_000, requestMs: requestSeconds * 1000, memoryMb: defaults.memory_mb };
const HISTORY_REPOS = [
  "astropy/astropy",
  "mwaskom/seaborn",
  "pydata/xarray",
  "pylint-dev/pylint",
  "pallets/flask",
  "psf/requests",
  "pytest-dev/pytest",
  "sphinx-doc/sphinx",
  "sympy/sympy",
];

/** One real change to check: a repository at a commit, and the new texts of the Python files the change modifies. */
interface Change {
  label: string;
  source: "gold" | "history";
  gitDir: string;
  commit: string;
  files: { path: string; before: string; after: string }[];
}

const gitDirOf = (repo: string) => path.join(values.mirrors!, repo.replace("/", "+"), "repo");
const git = (gitDir: string, ...args: string[]) => execFileSync("git", ["--git-dir", gitDir, ...args], { maxBuffer: 1 << 28 }).toString();

function goldChanges(): Change[] {
  const changes: Change[] = [];
  for (const line of fs.readFileSync(values.data!, "utf8").split("\n").filter(Boolean)) {
    const instance = JSON.parse(line) as { instance_id: string; repo: string; base_commit: string; patch: string };
    const gitDir = gitDirOf(instance.repo);
    const files = [];
    for (const patch of parsePatch(instance.patch)) {
      const file = patch.oldFileName!.replace(/^a\//, "");
      if (!file.endsWith(".py") || patch.newFileName === "/dev/null" || patch.oldFileName === "/dev/null") continue;
      const before = git(gitDir, "show", `${instance.base_commit}:${file}`);
      const after = applyPatch(before, patch);
      if (after === false) throw new Error(`${instance.instance_id}: the gold patch does not apply to ${file}`);
      files.push({ path: file, before, after });
    }
    if (files.length > 0) changes.push({ label: instance.instance_id, source: "gold", gitDir, commit: instance.base_commit, files });
  }
  return changes;
}

/** The latest `count` non-merge commits of a mirror that modify one to three Python files (and add or delete none). */
function historyChanges(repo: string, count: number): Change[] {
  const gitDir = gitDirOf(repo);
  if (!fs.existsSync(gitDir)) return [];
  const changes: Change[] = [];
  for (const commit of git(gitDir, "log", "--no-merges", "--format=%H", "-n", "400", "HEAD").split("\n").filter(Boolean)) {
    if (changes.length >= count) break;
    const rows = git(gitDir, "diff-tree", "--no-commit-id", "-r", "--name-status", `${commit}^`, commit)
      .split("\n")
      .filter(Boolean)
      .map((row) => row.split("\t"));
    const python = rows.filter((r) => r[1]!.endsWith(".py"));
    if (python.length === 0 || python.length > 3 || python.some((r) => r[0] !== "M")) continue;
    const files = python.map((r) => ({ path: r[1]!, before: git(gitDir, "show", `${commit}^:${r[1]}`), after: git(gitDir, "show", `${commit}:${r[1]}`) }));
    changes.push({ label: `${repo}@${commit.slice(0, 8)}`, source: "history", gitDir, commit: `${commit}^`, files });
  }
  return changes;
}

// What Pyright reads of a checkout: the Python sources and the files its settings may be in. Only these are unpacked
// (the mirrors may lack large data blobs, and they are not needed).
const READ = /(\.pyi?|(^|\/)(pyproject\.toml|setup\.cfg|pyrightconfig\.json))$/;

function unpack(gitDir: string, commit: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-bench-diagnostics-"));
  const files = git(gitDir, "ls-tree", "-r", "--name-only", commit)
    .split("\n")
    .filter((f) => READ.test(f));
  const script = 'd=$1 g=$2 c=$3; shift 3; git --git-dir "$g" archive "$c" -- "$@" | tar -x -C "$d"';
  execFileSync("sh", ["-c", script, "sh", dir, gitDir, commit, ...files], { maxBuffer: 1 << 26 });
  return dir;
}

interface Outcome {
  label: string;
  source: Change["source"];
  file: string;
  /** `real` for the change as it was, or the kind of the injected mistake. */
  variant: "real" | MistakeKind;
  where?: string;
  check: ChangeCheck;
  ms: number;
}

const refuses = (check: ChangeCheck) => check.checked && check.added.some((p) => refusing.has(p.rule));
const pct = (part: number, whole: number) => (whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)} %`);

/**
 * The resident memory of a process and its descendants, in MB: the server runs in a jail whose processes start
 * sessions of their own, so its process group alone would miss them.
 */
function treeRssMb(root: number): number {
  const parents = new Map<number, number>();
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      parents.set(Number(pid), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // The process ended meanwhile.
    }
  }
  const tree = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, parent] of parents)
      if (!tree.has(pid) && tree.has(parent)) {
        tree.add(pid);
        grew = true;
      }
  }
  let kb = 0;
  for (const pid of tree) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // The process ended meanwhile.
    }
  }
  return Math.round(kb / 1024);
}

async function measureSpeed(): Promise<Record<string, number | string>> {
  const gitDir = gitDirOf("sympy/sympy");
  const commit = git(gitDir, "rev-parse", "HEAD").trim();
  const dir = unpack(gitDir, commit);
  const files = git(gitDir, "ls-tree", "-r", "--name-only", commit).split("\n").filter(Boolean);
  const target = "sympy/core/expr.py";
  const other = "sympy/simplify/simplify.py";
  const text = fs.readFileSync(path.join(dir, target), "utf8");
  const otherText = fs.readFileSync(path.join(dir, other), "utf8");
  // A new text with one mistake, a name defined nowhere read at the module's top level (always reachable: a rename
  // inside a method may land where Pyright finds the code unreachable and add nothing); `n` makes each text new.
  const mistaken = (t: string, n: number) => `${t}\n\n_magis_probe_${n} = undefined_name_magis_${n}\n`;
  // How many of a text's diagnostics report the mistake: each check below must see it, or it measured nothing.
  const seen: number[] = [];
  const sawMistake = (diagnostics: { message: string }[] | undefined) =>
    seen.push(diagnostics?.filter((d) => d.message.includes("undefined_name_magis")).length ?? 0);
  let started = performance.now();
  const server = await startLanguageServer(dir, "python", limits);
  const startMs = performance.now() - started;
  try {
    started = performance.now();
    sawMistake((await server.diagnose(target, [text, mistaken(text, 0)]))[1]);
    const coldMs = performance.now() - started;
    const warm: number[] = [];
    for (let i = 1; i <= 3; i++) {
      started = performance.now();
      sawMistake((await server.diagnose(target, [text, mistaken(text, i)]))[1]);
      warm.push(performance.now() - started);
    }
    // A later attempt at the same file: its untouched text's diagnostics are remembered, the new text alone is checked.
    const later: number[] = [];
    for (let i = 4; i <= 6; i++) {
      started = performance.now();
      sawMistake((await server.diagnose(target, [mistaken(text, i)]))[0]);
      later.push(performance.now() - started);
    }
    started = performance.now();
    sawMistake((await server.diagnose(other, [otherText, mistaken(otherText, 7)]))[1]);
    const otherMs = performance.now() - started;
    const header = text.split("\n").findIndex((line) => line.startsWith("class Expr("));
    started = performance.now();
    const uses = await server.references(target, text, { line: header, character: 6 });
    const referencesColdMs = performance.now() - started;
    started = performance.now();
    await server.references(target, text, { line: header, character: 6 });
    const referencesWarmMs = performance.now() - started;
    const rssMb = treeRssMb(server.pid);
    return {
      repository: `sympy@${commit.slice(0, 8)}`,
      files: files.length,
      pythonFiles: files.filter((f) => f.endsWith(".py")).length,
      file: `${target} (${text.split("\n").length} lines)`,
      startMs: Math.round(startMs),
      coldCheckMs: Math.round(coldMs),
      warmCheckMs: Math.round(warm.sort((a, b) => a - b)[1]!),
      laterAttemptMs: Math.round(later.sort((a, b) => a - b)[1]!),
      laterAttemptsMs: later.map((ms) => Math.round(ms)).join(", "),
      otherFileCheckMs: Math.round(otherMs),
      referencesOf: `Expr (${uses.length} uses)`,
      referencesColdMs: Math.round(referencesColdMs),
      referencesWarmMs: Math.round(referencesWarmMs),
      rssMb,
      mistakeSeen: seen.every((n) => n === 1) ? `in all ${seen.length} new texts` : `NOT in every new text (${seen.join(", ")}): the times measured no change`,
    };
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A checkout of `files` in a scratch folder. */
function scratch(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-bench-diagnostics-"));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

/**
 * The environment a setup would make: Debian's python3 with a virtualenv, the bench's own package installed into it
 * from its folder and pyarrow from the machine's local wheel index (no registry), and a node_modules with the bench's
 * own typed package. `pyarrow` says how its install went.
 */
function makeEnvironment(): { dir: string; environment: ServerEnvironment; pyarrow: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-bench-environment-"));
  const fixtures = path.join(here, "fixtures", "third-party");
  const python = (...args: string[]) => execFileSync(path.join(dir, ".venv/bin/python"), args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  execFileSync("/usr/bin/python3", ["-m", "venv", "--system-site-packages", "--without-pip", ".venv"], { cwd: dir });
  python("-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", path.join(fixtures, "calc"));
  let pyarrow: string;
  try {
    python("-m", "pip", "install", "-q", "--no-deps", "--index-url", "file:///opt/pypi/simple", "pyarrow");
    pyarrow = `installed: ${String(python("-c", "import pyarrow; print(pyarrow.__version__)")).trim()}`;
  } catch (error) {
    pyarrow = `not installed: ${String((error as { stderr?: Buffer }).stderr ?? error)
      .trim()
      .split("\n")
      .at(-1)}`;
  }
  fs.cpSync(path.join(fixtures, "sum"), path.join(dir, "node_modules", "sum"), { recursive: true });
  const lib = path.join(dir, ".venv", "lib");
  const sitePackages = fs.readdirSync(lib).map((version) => path.join(lib, version, "site-packages"));
  return { dir, environment: { roots: [dir], python: sitePackages, nodeModules: [{ from: path.join(dir, "node_modules"), at: "node_modules" }] }, pyarrow };
}

/** One third-party case: a change to one file of a checkout, and whether the check should refuse it. */
interface ThirdPartyCase {
  label: string;
  root: string;
  files: { path: string; before: string; after: string }[];
  wanted: "refused" | "passed";
}

/** The third-party cases, each checked without and with the environment (see the header's step 5). */
async function measureThirdParty(): Promise<{ pyarrow: string; rows: { label: string; wanted: string; without: string; with: string }[] }> {
  const { dir, environment, pyarrow } = makeEnvironment();
  const app = "def main():\n    return 1\n";
  const use = "export const one = 1;\n";
  const ts = { "tsconfig.json": '{"compilerOptions": {"strict": true}}\n', "src/use.ts": use };
  const cases: ThirdPartyCase[] = [
    ["Python, a wrong call into the venv's package", "return add(1, 2, 3)", "refused"],
    ["Python, a right call into it", "return add(1, 2)", "passed"],
  ].map(([label, call, wanted]) => ({
    label: label!,
    root: scratch({ "app.py": app }),
    files: [{ path: "app.py", before: app, after: `from calc import add\n\n\ndef main():\n    ${call}\n` }],
    wanted: wanted as ThirdPartyCase["wanted"],
  }));
  for (const [label, call, wanted] of [
    ["TypeScript, one argument too many into node_modules' package", "sum(1, 2, 3)", "refused"],
    ["TypeScript, an argument of the wrong type (TS2345)", 'sum("1", 2)', "passed"],
    ["TypeScript, a right call", "sum(1, 2)", "passed"],
  ] as const)
    cases.push({
      label,
      root: scratch(ts),
      files: [{ path: "src/use.ts", before: use, after: `import { sum } from "sum";\nexport const one = ${call};\n` }],
      wanted,
    });
  const xarray = gitDirOf("pydata/xarray");
  if (fs.existsSync(xarray)) {
    const commit = git(xarray, "rev-parse", "21918194").trim();
    const files = git(xarray, "diff-tree", "--no-commit-id", "-r", "--name-only", `${commit}^`, commit)
      .split("\n")
      .filter((f) => f.endsWith(".py"))
      .map((f) => ({ path: f, before: git(xarray, "show", `${commit}^:${f}`), after: git(xarray, "show", `${commit}:${f}`) }));
    cases.push({ label: `xarray@${commit.slice(0, 8)} (imports pyarrow), real`, root: unpack(xarray, `${commit}^`), files, wanted: "passed" });
  }
  const rows = [];
  try {
    for (const c of cases) {
      const verdict: Record<"without" | "with", string> = { without: "", with: "" };
      for (const seen of ["without", "with"] as const) {
        const servers = openLanguageServers(c.root, limits);
        if (seen === "with") servers.useEnvironment(Promise.resolve(environment));
        await Promise.resolve();
        const alongside = c.files.map((f) => ({ path: f.path, text: f.after }));
        try {
          const found: string[] = [];
          for (const f of c.files) {
            const check = await servers.check(f.path, f.before, f.after, { alongside });
            const rules = f.path.endsWith(".py") ? refusing : refusingTs;
            if (!check.checked) found.push(`skipped: ${check.why}`);
            else found.push(...check.added.map((p) => `${rules.has(p.rule) ? "*" : ""}${p.rule}`));
          }
          const refused = found.some((rule) => rule.startsWith("*"));
          verdict[seen] = `${refused ? "refused" : "passed"}${found.length ? ` (${[...new Set(found)].join(", ")})` : ""}`;
        } finally {
          await servers.stop();
        }
      }
      rows.push({ label: c.label, wanted: c.wanted, ...verdict });
      fs.rmSync(c.root, { recursive: true, force: true });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { pyarrow, rows };
}

/** Prints the third-party cases' table (`*` marks a default refusing rule). */
function printThirdParty(thirdParty: Awaited<ReturnType<typeof measureThirdParty>>): void {
  console.log(`\nThird-party packages (pyarrow ${thirdParty.pyarrow}; \`*\` marks the default refusing rules):`);
  printTable([["case", "wanted", "without the environment", "with it"], ...thirdParty.rows.map((r) => [r.label, r.wanted, r.without, r.with])]);
}

if (values["third-party-only"]) {
  printThirdParty(await measureThirdParty());
  process.exit(0);
}
if (values["speed-only"]) {
  for (const [key, value] of Object.entries(await measureSpeed())) console.log(`  ${key}: ${value}`);
  process.exit(0);
}
const changes = [...goldChanges(), ...HISTORY_REPOS.flatMap((repo) => historyChanges(repo, Number(values.commits)))];
console.log(
  `${changes.length} changes (${changes.filter((c) => c.source === "gold").length} gold patches), ${changes.reduce((n, c) => n + c.files.length, 0)} files`,
);
const outcomes: Outcome[] = [];
for (const change of changes) {
  const dir = unpack(change.gitDir, change.commit);
  const servers = openLanguageServers(dir, limits);
  // A module the changed file imports from, as the change leaves it.
  const readModule = (file: string) => {
    const changed = change.files.find((f) => f.path === file);
    if (changed) return changed.after;
    const at = path.join(dir, file);
    return fs.existsSync(at) ? fs.readFileSync(at, "utf8") : null;
  };
  // The change's other files are read as it leaves them, as a job's earlier steps' changes are.
  const alongside = change.files.map((other) => ({ path: other.path, text: other.after }));
  try {
    for (const file of change.files) {
      const variants = [
        { variant: "real" as const, text: file.after },
        ...(await injectMistakes(file.path, file.before, file.after, readModule)).map((m) => ({ variant: m.kind, text: m.text, where: m.where })),
      ];
      for (const v of variants) {
        const started = performance.now();
        const check = await servers.check(file.path, file.before, v.text, { alongside });
        outcomes.push({
          label: change.label,
          source: change.source,
          file: file.path,
          variant: v.variant,
          ...("where" in v ? { where: v.where } : {}),
          check,
          ms: performance.now() - started,
        });
      }
    }
  } finally {
    await servers.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const mine = outcomes.filter((o) => o.label === change.label);
  console.log(`${change.label}: ${mine.map((o) => `${o.variant}=${!o.check.checked ? "skipped" : refuses(o.check) ? "refused" : "passed"}`).join(" ")}`);
}

const real = outcomes.filter((o) => o.variant === "real");
const realChanges = (source?: Change["source"]) => {
  const labels = new Set(real.filter((o) => !source || o.source === source).map((o) => o.label));
  const refused = new Set(real.filter((o) => labels.has(o.label) && refuses(o.check)).map((o) => o.label));
  return { count: labels.size, refused: refused.size };
};
const skipped = outcomes.filter((o) => !o.check.checked);
console.log("\nFalse refusals (real changes the default rules refuse):");
const rows = [["changes", "count", "refused", "share"]];
for (const [name, source] of [
  ["gold (SWE-bench Lite dev)", "gold"],
  ["history commits", "history"],
  ["all", undefined],
] as const) {
  const { count, refused } = realChanges(source);
  rows.push([name, String(count), String(refused), pct(refused, count)]);
}
printTable(rows);

console.log("\nCaught mistakes (injected into the same changes, refused by the default rules):");
const caughtRows = [["mistake", "gold", "caught", "share", "all", "caught", "share"]];
const kinds: MistakeKind[] = ["undefined-name", "extra-argument", "removed-import"];
const caught = (list: Outcome[]) => list.filter((o) => refuses(o.check)).length;
for (const kind of [...kinds, "all"] as const) {
  const all = outcomes.filter((o) => o.variant !== "real" && o.check.checked && (kind === "all" || o.variant === kind));
  const gold = all.filter((o) => o.source === "gold");
  caughtRows.push([
    kind,
    String(gold.length),
    String(caught(gold)),
    pct(caught(gold), gold.length),
    String(all.length),
    String(caught(all)),
    pct(caught(all), all.length),
  ]);
}
printTable(caughtRows);

console.log("\nError-level rules added (files; `*` marks the default refusing rules):");
const byRule = new Map<string, { real: number; mistakes: number; example: string }>();
for (const o of outcomes) {
  if (!o.check.checked) continue;
  for (const rule of new Set(o.check.added.map((p) => p.rule))) {
    const entry = byRule.get(rule) ?? { real: 0, mistakes: 0, example: o.check.added.find((p) => p.rule === rule)!.message };
    if (o.variant === "real") entry.real++;
    else entry.mistakes++;
    byRule.set(rule, entry);
  }
}
printTable([
  ["rule", "real", "mistakes", "example"],
  ...[...byRule]
    .sort((a, b) => b[1].real + b[1].mistakes - a[1].real - a[1].mistakes)
    .map(([rule, e]) => [`${refusing.has(rule) ? "*" : " "}${rule}`, String(e.real), String(e.mistakes), e.example.slice(0, 70)]),
]);
const missed = outcomes.filter((o) => o.variant !== "real" && o.check.checked && !refuses(o.check));
if (missed.length > 0) console.log(`\nMissed mistakes:\n${missed.map((o) => `  ${o.label} ${o.file} ${o.variant} at ${o.where}`).join("\n")}`);
const refusedReal = real.filter((o) => refuses(o.check));
if (refusedReal.length > 0)
  console.log(
    `\nRefused real changes:\n${refusedReal.map((o) => `  ${o.label} ${o.file}: ${o.check.checked ? o.check.added.map((p) => `${p.rule} ${p.message}`).join("; ") : ""}`).join("\n")}`,
  );
if (skipped.length > 0)
  console.log(`\nSkipped checks: ${skipped.length}\n${skipped.map((o) => `  ${o.label} ${o.file}: ${!o.check.checked ? o.check.why : ""}`).join("\n")}`);
const times = outcomes
  .filter((o) => o.check.checked)
  .map((o) => o.ms)
  .sort((a, b) => a - b);
console.log(
  `\nCheck time per file (before and after, server started on first use): median ${Math.round(times[Math.floor(times.length / 2)] ?? 0)} ms, max ${Math.round(times.at(-1) ?? 0)} ms`,
);

const thirdParty = await measureThirdParty();
printThirdParty(thirdParty);

console.log("\nSpeed and memory on sympy:");
const speed = await measureSpeed();
for (const [key, value] of Object.entries(speed)) console.log(`  ${key}: ${value}`);

fs.mkdirSync(path.dirname(resultFile), { recursive: true });
fs.writeFileSync(resultFile, JSON.stringify({ refusing: [...refusing], outcomes, thirdParty, speed }, null, 2));
console.log(`\nwrote ${path.relative(process.cwd(), resultFile)}`);
