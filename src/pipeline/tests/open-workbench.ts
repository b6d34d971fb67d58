import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { keepSetUpLayer, type LayeredCopy, type SetUpLayer } from "../../environment/index.js";
import type { EnvironmentScope, EnvironmentShelf, KeptEnvironment, KeptEnvironmentRecord } from "../../environment/types.js";
import { cleanOutput } from "../../lib/clean-text.js";
import { redactSecrets } from "../../lib/redact-secrets.js";
import { endOfText } from "../../lib/tail-buffer.js";
import { readTestOutput } from "../../lib/read-test-output.js";
import type { CommandRun, SetupNetwork } from "../../sandbox/index.js";
import type { CommandPolicy, EnvironmentReport, ReadyPhases, StageContext, TestRun } from "../types.js";
import { declaredEnvironment, keyOfEnvironment } from "./declared-environment.js";
import { keepSetUpState, type SetUpState } from "./keep-set-up-state.js";
import { layCheckoutOver, listCheckoutFiles } from "./lay-checkout-over.js";
import { makeWorkbench, type Workbench } from "./make-workbench.js";
import { removeAllBut, unmountLayers, type StuckLayer } from "./unmount-layers.js";
import { runEnvironmentSteps, secondsSince } from "./run-environment-steps.js";

export type { ChangedFile, Workbench } from "./make-workbench.js";

/** A workbench, or why there is none (with the setup's failed run and the environment when that is what failed). */
export type OpenedWorkbench =
  | { ok: true; workbench: Workbench }
  | {
      ok: false;
      why: string;
      /** The step that failed: its command and its run. */
      setup?: string;
      setupRun?: TestRun;
      sandbox?: { label: string; description: string };
      environment?: EnvironmentReport;
    };

/** Longer than a tick of the kernel's coarse clock, which file times come from (see keepSetUpState). */
const COARSE_TICK_MS = 20;

/** The end of a run's output kept for the report and the agents. */
const TAIL_CHARS = 4_000;

type Allowed = Extract<CommandPolicy, { allowed: true }>;

/**
 * Makes the copy the repository's commands run in, inside the sandbox the door chose, in its declared environment: a
 * kept environment with the checkout laid over it and its maintenance steps run, or a fresh copy with the setup steps
 * run (then handed to the shelf, in the background, for later jobs). Returns why not when the commands may not run
 * here or a step failed; throws only when the copy cannot be made.
 */
export async function openWorkbench(ctx: Pick<StageContext, "root" | "repoId" | "config" | "commands">, reuse = true): Promise<OpenedWorkbench> {
  const policy = ctx.commands ?? { allowed: false, why: "the caller did not allow running the repository's commands" };
  if (!policy.allowed) return { ok: false, why: policy.why };
  const started = performance.now();
  const { sandbox } = policy;
  const held = { label: sandbox.label, description: sandbox.description };
  const seconds = ctx.config.test_timeout_seconds;
  const declared = declaredEnvironment(ctx);
  if (declared && "unusable" in declared) return { ok: false, why: `the repository's environment cannot be set up: ${declared.unusable}`, sandbox: held };
  const declaration = declared;
  // The declaration's variables, with the repository's test_env over them.
  const env = { ...declaration?.env, ...ctx.config.test_env };

  // A folder of our own, made afresh (mkdtemp), which the copy goes into: no other user can take its name meanwhile.
  const own = policy.scratchDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "magis-tests-"));
  if (policy.scratchDir) {
    fs.rmSync(own, { recursive: true, force: true });
    fs.mkdirSync(own, { mode: 0o700 });
  }
  const dir = path.join(own, "repo");
  const home = path.join(own, "home");
  const kept = { dir: path.join(own, "set-up"), home: path.join(own, "set-up-home") };
  let keeping: Promise<unknown> | null = null;
  // The overlays a reused environment is laid under the copy and the home with: unmounted before the folder goes.
  const layers: LayeredCopy[] = [];
  // The set-up state is what the shelf copies from: removed only once it is done.
  const dispose = () => (keeping ? void keeping.finally(remove) : remove());
  const scope: EnvironmentScope = policy.scope ?? { repo: ctx.repoId };
  const key = declaration ? keyOfEnvironment(declaration, { root: ctx.root, env, sandbox }) : null;
  let found: KeptEnvironment | null = null;
  // An environment without setup steps is the checkout itself: nothing to keep or find. Without a sandbox the setup
  // runs at this copy's own host path, which a virtualenv's scripts and an editable install write into their files:
  // kept, they would name a folder gone with this job.
  const shelf = declaration && declaration.setup.length > 0 && sandbox.kind !== "none" ? policy.environments : undefined;
  // The kept environment is held (not evicted) until the set-up state that may link to its files is made, and while an
  // overlay shows it (until the copy is removed).
  let holding: KeptEnvironment | null = null;
  // Never throws either: a cleared environment the shelf could not take away on release is said, for the operator.
  const release = () => {
    const was = holding;
    holding = null;
    if (!was) return;
    try {
      shelf!.release(was);
    } catch (error) {
      warnLeft(policy.environments, [{ target: path.dirname(was.repoDir), why: error instanceof Error ? error.message : String(error) }]);
    }
  };
  // Never throws (it runs from dispose, after the job's outcome is known): what stays mounted or on the disk is said.
  const remove = () => {
    const stuck = unmountLayers(layers);
    release();
    const left = [...stuck, ...removeAllBut(own, stuck)];
    if (left.length > 0) warnLeft(policy.environments, left);
  };
  try {
    found = key && shelf && reuse ? shelf.find(scope, key.key) : null;
    holding = found;
    let checkoutFiles: string[] | null = null;
    if (found) {
      try {
        checkoutFiles = layCheckoutOver(found, ctx.root, { dir, home, layers });
      } catch (error) {
        // Gone or changed meanwhile (another worker evicted or replaced it, `magis env clear`): built afresh instead,
        // unless a layer stays mounted where the fresh copy would go.
        const stuck = unmountLayers(layers);
        release();
        if (stuck.length > 0) throw new StuckLayers(error, stuck);
        found = null;
        checkoutFiles = null;
        for (const folder of [dir, home]) for (const at of [folder, `${folder}.layers`]) fs.rmSync(at, { recursive: true, force: true });
      }
    }
    const laid = describeLayers(layers, home);
    if (!found) {
      fs.cpSync(ctx.root, dir, { recursive: true, verbatimSymlinks: true });
      fs.mkdirSync(home, { mode: 0o700 });
    }
    // Each phase's seconds, counted from the end of the one before (the first from the start).
    let lapped = started;
    const lap = () => {
      const seconds = secondsSince(lapped);
      lapped += seconds * 1000;
      return seconds;
    };
    const phases: Partial<ReadyPhases> = { laid: lap() };
    sandbox.prepare(dir);
    sandbox.prepare(home);
    // Over an overlay the set-up state is what was written over the kept folder (see keepSetUpLayer). Over a copy of
    // one, the files of the kept environment as they were copied: those no step changes need not be copied again.
    const overlay = (at: string) => (found ? layers.find((layer) => layer.target === at && layer.how !== "copy") : undefined);
    const overlays = [overlay(dir), overlay(home)];
    const copied =
      found && checkoutFiles
        ? [overlays[0] ? null : recordCopied(dir, found.repoDir, checkoutFiles), overlays[1] ? null : recordCopied(home, found.homeDir, [])]
        : null;
    // A step's write in the same tick of the kernel's coarse clock as the look above would keep the file's times.
    if (copied?.some(Boolean) && declaration?.maintenance.length) await sleep(COARSE_TICK_MS);
    phases.prepared = lap();
    const run = async (text: string, network?: SetupNetwork): Promise<TestRun> =>
      await describeRun(
        await sandbox.run(text, { dir, env, home, timeoutMs: seconds * 1000, signal: policy.signal, ...(network ? { network } : {}) }),
        policy.secrets ?? [],
      );
    const kind = found ? "maintenance" : "setup";
    const steps = declaration ? await runEnvironmentSteps(declaration[kind], { kind, declaration, policy, run, timeoutSeconds: seconds }) : null;
    phases.steps = lap();
    const report = (extra: Partial<EnvironmentReport>): EnvironmentReport | undefined =>
      declaration && key && steps
        ? {
            source: declaration.source,
            how: found ? "reused" : "built",
            steps: steps.ran,
            stepSeconds: steps.seconds,
            readySeconds: secondsSince(started),
            key: key.key.slice(0, 12),
            unsupported: declaration.unsupported,
            shadowed: declaration.shadowed,
            ...(steps.network ? { network: steps.network } : {}),
            ...(laid ? { laid } : {}),
            ...(phases.state !== undefined ? { phases: phases as ReadyPhases } : {}),
            ...extra,
          }
        : undefined;
    if (steps?.failed && found) {
      // A kept environment its maintenance cannot bring up to date is built afresh (and kept in its place).
      found = null;
      remove();
      return saying(await openWorkbench(ctx, false), { maintenanceFailed: steps.failed.why });
    }
    if (steps?.failed) {
      remove();
      const { why, name, command, run: failedRun } = steps.failed;
      return {
        ok: false,
        why,
        setup: command,
        setupRun: failedRun,
        sandbox: held,
        environment: report({ failed: why, failedStep: { name, run: failedRun } })!,
      };
    }
    let states: SetUpState[];
    try {
      const keep = (at: string, keep: string, index: 0 | 1): SetUpState => {
        const layer = overlays[index];
        if (layer) return layeredState(keepSetUpLayer(layer, keep, layers));
        const sameAs = copied?.[index];
        return keepSetUpState(at, keep, sameAs ? { sameAs } : {});
      };
      states = [keep(dir, kept.dir, 0), keep(home, kept.home, 1)];
      phases.state = lap();
    } catch (error) {
      remove();
      const why = `the copy's set-up state could not be kept (${error instanceof Error ? error.message : String(error)})`;
      return { ok: false, why, sandbox: held, ...(declaration ? { environment: report({ failed: why }) } : {}) };
    }
    // A copy no longer needs the kept environment once its set-up state is made; an overlay shows it until removed.
    if (!layers.some((layer) => layer.how !== "copy")) release();
    const environment = report({});
    let settled: Promise<EnvironmentReport | undefined> = Promise.resolve(environment);
    if (environment && declaration && key && !found && declaration.setup.length > 0 && sandbox.kind === "none" && policy.environments) {
      settled = Promise.resolve({ ...environment, kept: { kept: false, why: "not kept without a sandbox: what its setup made names this job's own folders" } });
    } else if (environment && declaration && key && !found && declaration.setup.length > 0) {
      const record = { keyParts: { ...key.parts }, source: declaration.source, builtAt: new Date().toISOString(), buildSeconds: steps!.seconds };
      settled = keepEnvironment(policy, { scope, key: key.key, kept, record, checkoutFiles: checkoutFiles ?? listCheckoutFiles(ctx.root), steps: steps! }).then(
        (outcome) => ({ ...environment, kept: outcome }),
      );
      keeping = settled;
    }
    const workbench = makeWorkbench({ states, dir, kept, run, dispose, sandbox: held, ...(environment ? { environment } : {}), settled: () => settled });
    return { ok: true, workbench };
  } catch (error) {
    remove();
    throw error;
  }
}

/**
 * How the kept folders were laid under the copy and the home: a copy of either is what is said (which one, and why),
 * else how the copy's was.
 */
function describeLayers(layers: readonly LayeredCopy[], home: string): EnvironmentReport["laid"] {
  const shown = layers.find((layer) => layer.how === "copy") ?? layers[0];
  if (!shown) return undefined;
  const which = shown.target === home ? "the home" : "the copy";
  return { how: shown.how, ...(shown.why ? { why: `${which}: ${shown.why}` } : {}) };
}

/** Says what a job's copy left mounted or on the disk, for the operator to remove by hand. */
function warnLeft(shelf: EnvironmentShelf | undefined, left: readonly StuckLayer[]): void {
  const message = `a job's copy left ${left.map(({ target, why }) => `${target} (${why})`).join("; ")}: unmount and remove it by hand`;
  if (shelf?.warn) shelf.warn({ left: left.map(({ target }) => target) }, message);
  else process.emitWarning(message);
}

/** A kept environment that could not be laid under the copy, whose layers then stayed mounted. */
class StuckLayers extends Error {
  constructor(cause: unknown, stuck: readonly StuckLayer[]) {
    const why = cause instanceof Error ? cause.message : String(cause);
    const left = stuck.map(({ target, why: stayed }) => `${target} (${stayed})`).join("; ");
    super(`the kept environment could not be laid under the copy (${why}), and its overlay stayed mounted at ${left}: unmount it by hand`, { cause });
  }
}

/** The opened workbench with this added to its environment's report, as ready and as settled. */
function saying(opened: OpenedWorkbench, extra: Partial<EnvironmentReport>): OpenedWorkbench {
  const add = (report: EnvironmentReport | undefined) => report && { ...report, ...extra };
  if (!opened.ok) return opened.environment ? { ...opened, environment: add(opened.environment)! } : opened;
  const { workbench } = opened;
  const environment = add(workbench.environment);
  return { ok: true, workbench: { ...workbench, ...(environment ? { environment } : {}), settled: async () => add(await workbench.settled()) } };
}

/**
 * Hands the set-up state to the shelf for later jobs: the copies are the shelf's own, so the runs meanwhile (in the
 * copy, restored from the set-up state, which only the shelf reads) cannot reach it. A failure to keep is reported.
 */
async function keepEnvironment(
  policy: Allowed,
  input: {
    scope: EnvironmentScope;
    key: string;
    kept: { dir: string; home: string };
    record: Omit<KeptEnvironmentRecord, "scope" | "key" | "bytes" | "usedAt" | "checkoutFiles" | "network">;
    checkoutFiles: string[];
    steps: { network?: KeptEnvironmentRecord["network"] };
  },
): Promise<EnvironmentReport["kept"]> {
  if (!policy.environments) return { kept: false, why: "keeping is off here: each job builds its own" };
  try {
    const done = await policy.environments.keep({
      scope: input.scope,
      key: input.key,
      repoDir: input.kept.dir,
      homeDir: input.kept.home,
      record: { ...input.record, checkoutFiles: input.checkoutFiles, ...(input.steps.network ? { network: input.steps.network } : {}) },
    });
    if (done) return { kept: true };
    const off = policy.environments.maxBytes <= 0;
    return {
      kept: false,
      why: off ? "keeping is off (MAGIS_ENV_CACHE_MB is 0)" : "it alone is bigger than the kept environments may be in all (MAGIS_ENV_CACHE_MB)",
    };
  } catch (error) {
    return { kept: false, why: `it could not be kept (${error instanceof Error ? error.message : String(error)})` };
  }
}

/**
 * The files of `dir` copied from a kept environment's folder `from` (all but the checkout's own), by inode and change
 * time right after the copy: a file that still has both is unchanged, and the kept one holds its bytes. The kept
 * folders are never written (the shelf replaces an environment by a new folder), so the set-up state may link to them.
 */
function recordCopied(dir: string, from: string, checkoutFiles: readonly string[]): (relative: string, stat: fs.BigIntStats) => string | null {
  const own = new Set(checkoutFiles);
  type Identity = Pick<fs.BigIntStats, "dev" | "ino" | "mtimeNs" | "size">;
  const copied = new Map<string, { copy: Identity & Pick<fs.BigIntStats, "ctimeNs">; source: Identity }>();
  const same = (a: Identity, b: Identity) => a.dev === b.dev && a.ino === b.ino && a.mtimeNs === b.mtimeNs && a.size === b.size;
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const at = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(at);
      else if (entry.isFile() && !own.has(at)) {
        const source = fs.lstatSync(path.join(from, at), { bigint: true, throwIfNoEntry: false });
        if (!source?.isFile()) continue;
        copied.set(at, { copy: fs.lstatSync(path.join(dir, at), { bigint: true }), source });
      }
    }
  };
  walk("");
  // A file unchanged since the copy, whose kept source is still the very file it was copied from (not a newer build's
  // kept under the same key meanwhile), may be linked to.
  return (relative, stat) => {
    const was = copied.get(relative.split(path.sep).join("/"));
    if (!was || !same(was.copy, stat) || was.copy.ctimeNs !== stat.ctimeNs) return null;
    const source = path.join(from, relative);
    const now = fs.lstatSync(source, { bigint: true, throwIfNoEntry: false });
    return now?.isFile() && same(was.source, now) ? source : null;
  };
}

/** A set-up layer as a set-up state: a restore mounts a new upper layer, and a run needs no wait (no file times are compared). */
function layeredState(layer: SetUpLayer): SetUpState {
  return {
    restore: () => layer.restore(),
    settled: () => Promise.resolve(),
  };
}

/** A command's run as the report keeps it: counts and failing tests read from the whole kept output, a short clean tail. */
async function describeRun(run: CommandRun, secrets: readonly (string | undefined)[]): Promise<TestRun> {
  const { counts, failures } = readTestOutput(run.output);
  const clean = await cleanOutput(run.output, secrets);
  const { outcome, exitCode, durationMs, error } = run;
  return {
    outcome,
    exitCode,
    counts,
    failures: failures.map((name) => redactSecrets(name, secrets)),
    tail: endOfText(clean, TAIL_CHARS),
    durationMs,
    ...(error ? { error } : {}),
  };
}
