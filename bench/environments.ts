// Time to "tests can run" for a first job (the environment built) and a second job (the kept one reused), on a Python
// and a Node repository, through the real pipeline pieces (startTestBench, the real bubblewrap, the shelf, the proxy).
//
//   npm run bench:environments [-- --runs 5]
//
// Each run starts from an empty shelf: the first job builds the environment (Python: a virtualenv with the package
// installed editable, no registry; Node: npm ci through the setup's proxy from a registry served on 127.0.0.1), the
// second job of the same key reuses it and runs only its maintenance. Prints the median of each: the seconds until the
// workbench was open and the first test run started, the steps' seconds, and the second's time to ready as a share of
// the first's setup (the goal: at most 10 %), with its min-max; then what the second's time to ready is made of (the
// median of each phase): laid (the kept environment mounted, the checkout laid over it), prepared (the copy given to
// the sandbox's user), maintenance, state (the set-up state kept: the set-up layer and its view mounted), and the rest
// (until the first test run began). The load average is printed at the start and at the end.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openEnvironmentShelf } from "../src/environment/index.js";
import { bwrapSandbox, checkBwrap, DEFAULT_LIMITS, type Sandbox } from "../src/sandbox/index.js";
import { nodeConfig, PYTHON_CONFIG, startNpmRegistry, writeNodeDemo, writePythonDemo } from "../test/integration/environment/demo-repositories.js";
import { commitAll, runJobTests, type JobTests } from "../test/integration/environment/run-job-tests.js";
import { startManyPackageRegistry, writeManyPackageDemo } from "./lib/many-package-registry.js";
import { printTable } from "./lib/print-table.js";
import type { ReadyPhases } from "../src/pipeline/types.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "5" } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error("--runs: expected a whole number of runs, at least 1");
  process.exit(2);
}
const checked = checkBwrap({ limits: DEFAULT_LIMITS, setupNetwork: true, searchPath: process.env.PATH ?? "" });
if (!checked.ok) {
  console.error(`bench:environments needs a working bubblewrap: ${checked.why}`);
  process.exit(1);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-bench-environments-"));
const registry = await startNpmRegistry(work);
// A repository with as many dependencies as real ones have: its setup is bound by installing them, not by one package.
const MANY = 300;
const many = await startManyPackageRegistry(path.join(work, "many-registry"), MANY);
const sandbox: Sandbox = bwrapSandbox({
  program: checked.program,
  limits: DEFAULT_LIMITS,
  setupNetwork: true,
  setupAllowHosts: [`127.0.0.1:${registry.port}`, `127.0.0.1:${many.port}`],
});
const repositories = [
  { name: "Python (venv, pip install -e .)", write: writePythonDemo, config: PYTHON_CONFIG },
  { name: "Node (npm ci through the proxy)", write: (root: string) => writeNodeDemo(root, registry, "1.0.0"), config: nodeConfig(registry) },
  {
    name: `Node, ${MANY} dependencies (npm ci through the proxy; no maintenance)`,
    write: (root: string) => writeManyPackageDemo(root, many, commitAll),
    config: {
      environment: { setup: [`npm ci --registry http://127.0.0.1:${many.port}/ --no-audit --no-fund`] },
      test_command: "node --test",
      test_timeout_seconds: 300,
    },
  },
];

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const seconds = (x: number) => x.toFixed(2);

/** One job's figures, or a failure that stops the bench (a figure of a job whose tests did not run means nothing). */
function figures(job: JobTests, what: string): { ready: number; steps: number; how: string; phases: ReadyPhases; laid: string } {
  const { environment, report } = job;
  if (!environment || environment.failed || !report?.before || report.before.outcome !== "passed")
    throw new Error(`${what}: the environment or the tests failed: ${environment?.failed ?? report?.skipped ?? report?.before?.tail ?? "no report"}`);
  if (!environment.phases) throw new Error(`${what}: the environment's report has no phases`);
  return { ready: job.readyMs / 1000, steps: environment.stepSeconds, how: environment.how, phases: environment.phases, laid: environment.laid?.how ?? "none" };
}

const load = () => os.loadavg()[0]!.toFixed(1);
const loadAtStart = load();
const rows = [["repository", "first: ready s", "first: setup s", "second: ready s (min-max)", "second: maintenance s", "second / first setup"]];
const phaseRows = [["repository", "laid s", "prepared s", "maintenance s", "state s", "rest s", "laid over"]];
try {
  for (const repository of repositories) {
    const first: ReturnType<typeof figures>[] = [];
    const second: ReturnType<typeof figures>[] = [];
    for (let run = 1; run <= runs; run++) {
      const dir = path.join(work, `run-${run}`);
      const root = path.join(dir, "checkout");
      repository.write(root);
      const shelf = openEnvironmentShelf({ folder: path.join(dir, "shelf"), maxBytes: 1024 * 1024 * 1024 });
      const job = (n: number) => runJobTests({ root, config: repository.config, sandbox, shelf, scratchDir: path.join(dir, `job-${n}`) });
      const built = figures(await job(1), `${repository.name}, run ${run}, the first job`);
      const reused = figures(await job(2), `${repository.name}, run ${run}, the second job`);
      if (built.how !== "built" || reused.how !== "reused")
        throw new Error(`${repository.name}, run ${run}: expected built then reused, got ${built.how}, ${reused.how}`);
      first.push(built);
      second.push(reused);
      await shelf.settled();
      fs.rmSync(dir, { recursive: true, force: true });
      console.error(`${repository.name}, run ${run}: first ready in ${seconds(built.ready)} s, second in ${seconds(reused.ready)} s`);
    }
    const firstSetup = median(first.map((f) => f.steps));
    const secondReadies = second.map((f) => f.ready);
    const secondReady = median(secondReadies);
    rows.push([
      repository.name,
      seconds(median(first.map((f) => f.ready))),
      seconds(firstSetup),
      `${seconds(secondReady)} (${seconds(Math.min(...secondReadies))}-${seconds(Math.max(...secondReadies))})`,
      seconds(median(second.map((f) => f.steps))),
      `${((secondReady / firstSetup) * 100).toFixed(0)} %`,
    ]);
    const phase = (name: keyof ReadyPhases) => median(second.map((f) => f.phases[name]));
    const rest = median(second.map((f) => f.ready - f.phases.laid - f.phases.prepared - f.phases.steps - f.phases.state));
    phaseRows.push([
      repository.name,
      seconds(phase("laid")),
      seconds(phase("prepared")),
      seconds(phase("steps")),
      seconds(phase("state")),
      seconds(rest),
      [...new Set(second.map((f) => f.laid))].join(", "),
    ]);
  }
  console.log(`bench:environments: ${runs} run(s) each, medians, on ${os.cpus().length} cores (load ${loadAtStart} at the start, ${load()} at the end)`);
  printTable(rows);
  console.log("\nThe second job's time to ready, by phase (medians):");
  printTable(phaseRows);
} finally {
  await registry.close();
  await many.close();
  fs.rmSync(work, { recursive: true, force: true });
}
