// What the sandbox costs per command: the same command run bare (MAGIS_SANDBOX=none) and in bubblewrap, in a copy
// of a checkout, as the tests of a job run.
//
//   npm run bench:sandbox [-- --runs 10] [--python-mirror GIT_DIR] [--python-rev REV] [--restore-mirror GIT_DIR]
//
// Each case runs bare, in bubblewrap, and in bubblewrap as a setup given the network (the bot's proxy, and the bridge
// that starts before the command: what a setup's run costs more). Cases: `true` (the sandbox's own start-up and teardown), the example shop's `node --test`, and, given a mirror of
// psf/requests, `python3 -m pytest -q tests/test_structures.py` at --python-rev (needs Debian's python3-pytest, as the
// sandbox sees /usr alone). Prints the median and 90th percentile of each, and the sandbox's share. Given a mirror of a
// large repository (--restore-mirror, sympy say), it also measures what putting the copy back as the setup left it costs
// after each run: once for keeping the set-up state, then per run that changed nothing, one file, or added a folder.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { bwrapSandbox, checkBwrap, DEFAULT_LIMITS, hostSandbox, type Sandbox, type SetupNetwork, startSetupProxy } from "../src/sandbox/index.js";
import { keepSetUpState } from "../src/pipeline/tests/keep-set-up-state.js";
import { printTable } from "./lib/print-table.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "10" },
    "python-mirror": { type: "string" },
    "python-rev": { type: "string", default: "v2.31.0" },
    "restore-mirror": { type: "string" },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error("--runs: expected a whole number of runs, at least 1");
  process.exit(2);
}
const checked = checkBwrap({ limits: DEFAULT_LIMITS, setupNetwork: false, searchPath: process.env.PATH ?? "" });
if (!checked.ok) {
  console.error(`bench:sandbox needs a working bubblewrap: ${checked.why}`);
  process.exit(1);
}
const sandboxes: Record<string, Sandbox> = {
  // The PATH the sandbox gives: both run the same programs (a pyenv shim first on the host's PATH would not be).
  bare: hostSandbox({ PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" }, []),
  bwrap: bwrapSandbox({ program: checked.program, limits: DEFAULT_LIMITS, setupNetwork: false }),
  "bwrap setup": bwrapSandbox({ program: checked.program, limits: DEFAULT_LIMITS, setupNetwork: true }),
};
const proxy = await startSetupProxy({ allow: [] });
const networks: Record<string, SetupNetwork | undefined> = { "bwrap setup": proxy.network };

const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-bench-sandbox-"));
const cases: { name: string; source: string | null; command: string }[] = [
  { name: "true", source: null, command: "true" },
  { name: "shop: node --test", source: path.resolve(import.meta.dirname, "..", "examples", "shop"), command: "node --test" },
];
try {
  if (values["python-mirror"]) {
    const requests = path.join(work, "requests");
    execFileSync("git", ["clone", "-q", "--no-checkout", path.resolve(values["python-mirror"]), requests]);
    execFileSync("git", ["-C", requests, "checkout", "-q", values["python-rev"]!]);
    fs.rmSync(path.join(requests, ".git"), { recursive: true, force: true });
    cases.push({
      name: `requests ${values["python-rev"]}: pytest tests/test_structures.py`,
      source: requests,
      command: "python3 -m pytest -q -p no:cacheprovider tests/test_structures.py",
    });
  }
  const rows = [
    ["case", "runs", "bare median ms", "bare p90 ms", "bwrap median ms", "bwrap p90 ms", "sandbox adds (median)", "setup median ms", "proxy adds (median)"],
  ];
  for (const { name, source, command } of cases) {
    const times: Record<string, number[]> = { bare: [], bwrap: [], "bwrap setup": [] };
    const copies: Record<string, string> = {};
    for (const [kind, sandbox] of Object.entries(sandboxes)) {
      const copy = path.join(work, `copy-${kind}`);
      fs.rmSync(copy, { recursive: true, force: true });
      if (source) fs.cpSync(source, copy, { recursive: true });
      else fs.mkdirSync(copy);
      sandbox.prepare(copy);
      copies[kind] = copy;
      // One run first, unmeasured: file caches warm for both alike.
      const first = await sandbox.run(command, { dir: copy, env: {}, timeoutMs: 600_000, network: networks[kind] });
      if (first.outcome === "error" || first.outcome === "timed-out")
        throw new Error(`${name} (${kind}) did not run: ${first.error ?? first.outcome}\n${first.output.slice(-2000)}`);
      console.log(`${name} (${kind}): ${first.outcome}, exit ${first.exitCode}`);
    }
    // Bare and sandboxed runs take turns, so a change of the machine's load weighs on both alike.
    for (let i = 0; i < runs; i++)
      for (const [kind, sandbox] of Object.entries(sandboxes))
        times[kind]!.push((await sandbox.run(command, { dir: copies[kind]!, env: {}, timeoutMs: 600_000, network: networks[kind] })).durationMs);
    const bare = quantiles(times.bare!);
    const bwrap = quantiles(times.bwrap!);
    const setup = quantiles(times["bwrap setup"]!);
    rows.push([
      name,
      String(runs),
      String(bare.median),
      String(bare.p90),
      String(bwrap.median),
      String(bwrap.p90),
      `${bwrap.median - bare.median} ms (${bare.median > 0 ? Math.round(((bwrap.median - bare.median) / bare.median) * 100) : "—"} %)`,
      String(setup.median),
      `${setup.median - bwrap.median} ms`,
    ]);
  }
  console.log(`\nbench:sandbox on ${os.cpus().length} cores, Node ${process.version}, load ${os.loadavg()[0]!.toFixed(1)}, bwrap at ${checked.program}\n`);
  printTable(rows);
  if (values["restore-mirror"]) await measureRestore(path.resolve(values["restore-mirror"]));
} finally {
  await proxy.close();
  fs.rmSync(work, { recursive: true, force: true });
}

/** What keeping the set-up state costs once, and putting the copy back after each run, on a checkout of the mirror. */
async function measureRestore(mirror: string): Promise<void> {
  const copy = path.join(work, "restore");
  execFileSync("git", ["clone", "-q", "--depth=1", `file://${mirror}`, copy]);
  fs.rmSync(path.join(copy, ".git"), { recursive: true, force: true });
  const sandbox = sandboxes.bwrap!;
  sandbox.prepare(copy);
  const files = fs.readdirSync(copy, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length;
  const keptAt = performance.now();
  const state = keepSetUpState(copy, path.join(work, "set-up"));
  const keepMs = Math.round(performance.now() - keptAt);
  // What each run does to the copy before the restore: the command runs in the sandbox, unmeasured.
  const shapes = [
    { name: "a run that changed nothing", command: "true" },
    { name: "a run that rewrote one file", command: "echo '# changed' >> setup.py" },
    { name: "a run that added 1,000 files", command: "mkdir -p build && for i in $(seq 1000); do echo $i > build/f$i; done" },
    { name: "a run that removed a folder", command: "rm -rf sympy/core" },
  ];
  const rows = [["after", "runs", "restore median ms", "restore p90 ms", "entries put back", "entries removed"]];
  for (const shape of shapes) {
    const times: number[] = [];
    let count = { restored: 0, removed: 0 };
    for (let i = 0; i < runs; i++) {
      await state.settled();
      const run = await sandbox.run(shape.command, { dir: copy, env: {}, timeoutMs: 600_000 });
      if (run.outcome !== "passed") throw new Error(`${shape.name}: ${run.outcome} ${run.output.slice(-500)}`);
      const at = performance.now();
      count = state.restore();
      times.push(performance.now() - at);
    }
    const { median, p90 } = quantiles(times.map(Math.round));
    rows.push([shape.name, String(runs), String(median), String(p90), String(count.restored), String(count.removed)]);
  }
  console.log(
    `\nPutting the copy back as the setup left it, on ${path.basename(path.dirname(mirror))} (${files} files): keeping the set-up state took ${keepMs} ms\n`,
  );
  printTable(rows);
}

function quantiles(values: number[]): { median: number; p90: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { median: at(0.5), p90: at(0.9) };
}
