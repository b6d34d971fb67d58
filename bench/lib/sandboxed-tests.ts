import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** What the scale runs' jobs do with the repository's tests: `none` (no commands), or `sandbox` (an environment and tests in bubblewrap). */
export type TestsMode = "none" | "sandbox";

/** `--tests`'s value as a mode, or an error that says what it takes. */
export function testsModeFrom(value: string): TestsMode {
  if (value === "none" || value === "sandbox") return value;
  throw new Error(`--tests: expected none or sandbox, got ${JSON.stringify(value)}`);
}

/**
 * The `.github/magis.yml` of the sandbox mode: an environment whose setup makes a virtualenv (no network: the system's
 * packages) and a test that passes once README.md spells "commit" right. A worker's first job builds the environment,
 * its later jobs reuse the kept one.
 */
export const SANDBOX_CONFIG = [
  "environment:",
  "  setup:",
  "    - python3 -m venv --system-site-packages .venv",
  `test_command: .venv/bin/python -c "import sys; sys.exit(0 if 'Please commit your' in open('README.md').read() else 1)"`,
  "test_timeout_seconds: 120",
  "",
].join("\n");

/** The workers' environments in the sandbox mode: a folder of each worker's own (MAGIS_ENV_DIR), as on machines of their own. */
export interface WorkerEnvironments {
  /** The env of the n-th worker (from 0): empty in the `none` mode. */
  envOf(worker: number): NodeJS.ProcessEnv;
  /** Removes the folders. */
  remove(): void;
}

/** Makes the workers' environment folders (none in the `none` mode). */
export function workerEnvironments(mode: TestsMode): WorkerEnvironments {
  if (mode === "none") return { envOf: () => ({}), remove: () => {} };
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "magis-scale-env-"));
  return {
    envOf: (worker) => ({ MAGIS_SANDBOX: "bwrap", MAGIS_ENV_DIR: path.join(folder, `worker-${worker}`) }),
    remove: () => fs.rmSync(folder, { recursive: true, force: true }),
  };
}

/** How the jobs' environments and tests went, read from the pull requests they opened. */
export interface TestsTally {
  /** Pull requests whose environment was built (setup ran), reused (a kept one), or neither said. */
  built: number;
  reused: number;
  unsaid: number;
  /** Pull requests whose tests passed with the change. */
  passed: number;
}

/** Counts the environments built and reused, and the tests passed, in the pull requests' bodies. */
export function tallyTests(bodies: string[]): TestsTally {
  const tally: TestsTally = { built: 0, reused: 0, unsaid: 0, passed: 0 };
  for (const body of bodies) {
    if (/Environment from [^:\n]+: built in /.test(body)) tally.built++;
    else if (/Environment from [^:\n]+: reused \(kept under /.test(body)) tally.reused++;
    else tally.unsaid++;
    if (/\| With the change \|[^\n]*\| passed \(exit 0\) \|/.test(body)) tally.passed++;
  }
  return tally;
}

/**
 * Throws unless every one of `jobs` pull requests ran its tests (passed with the change) from an environment, and
 * each worker built at most one: a run where tests did not run measured something else than the sandbox mode claims.
 */
export function assertSandboxedTests(tally: TestsTally, jobs: number, workers: number): void {
  const problems: string[] = [];
  if (tally.built + tally.reused + tally.unsaid !== jobs) problems.push(`${tally.built + tally.reused + tally.unsaid} pull requests for ${jobs} jobs`);
  if (tally.unsaid > 0) problems.push(`${tally.unsaid} pull request(s) name no environment built or reused`);
  if (tally.passed !== jobs) problems.push(`the tests passed with the change in ${tally.passed} of ${jobs} pull requests`);
  if (tally.built > workers) problems.push(`${tally.built} environments built by ${workers} worker(s): each should build one and reuse it`);
  if (problems.length > 0)
    throw new Error(
      `the sandbox mode's jobs did not all run their tests from a kept environment: ${problems.join("; ")}; read the workers' logs (LOG_LEVEL=info)`,
    );
}
