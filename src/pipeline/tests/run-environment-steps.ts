import type { EnvironmentDeclaration, EnvironmentStep } from "../../environment/types.js";
import { startSetupProxy, type NetworkTally, type Sandbox, type SetupNetwork, type SetupProxy } from "../../sandbox/index.js";
import type { CommandPolicy, TestRun } from "../types.js";
import { describeExit } from "./describe-test-verdict.js";
import { readEnvironmentFailure } from "./read-environment-failure.js";

/** How the steps ended: every one passed, or the first that did not, with why. */
export interface StepsRun {
  /** The names of the steps that ran, in order (the failed one last). */
  ran: string[];
  seconds: number;
  /** What the steps' proxy saw; absent when they had no network. */
  network?: NetworkTally;
  failed?: { name: string; command: string; run: TestRun; why: string };
}

/**
 * Runs a declaration's setup (or maintenance) steps in order in the copy, stopping at the first that does not pass. They
 * get the setup's network where the sandbox allows it, and nothing else does.
 */
export async function runEnvironmentSteps(
  steps: readonly EnvironmentStep[],
  input: {
    kind: "setup" | "maintenance";
    declaration: EnvironmentDeclaration;
    policy: Extract<CommandPolicy, { allowed: true }>;
    run: (command: string, network?: SetupNetwork) => Promise<TestRun>;
    timeoutSeconds: number;
  },
): Promise<StepsRun> {
  const started = performance.now();
  const ran: string[] = [];
  if (steps.length === 0) return { ran, seconds: 0 };
  const proxy = await openProxy(input.policy.sandbox, input.declaration);
  try {
    for (const step of steps) {
      ran.push(step.name);
      const run = await input.run(step.command, proxy?.network);
      if (run.outcome !== "passed") {
        const what = isSetupCommand(input.declaration) ? "the setup command" : `the ${input.kind} step \`${step.name}\``;
        const why = `${what} ${describeExit(run, input.timeoutSeconds)}${describeGap(run)}`;
        return {
          ran,
          seconds: secondsSince(started),
          ...(proxy ? { network: proxy.tally() } : {}),
          failed: { name: step.name, command: step.command, run, why },
        };
      }
    }
    return { ran, seconds: secondsSince(started), ...(proxy ? { network: proxy.tally() } : {}) };
  } finally {
    await proxy?.close();
  }
}

/**
 * The setup's proxy, where the sandbox gives a setup the network and lists the hosts it may reach (the repository's
 * `network` narrows them); null where the setup has no network, or reaches it without one (no sandbox).
 */
async function openProxy(sandbox: Sandbox, declaration: EnvironmentDeclaration): Promise<SetupProxy | null> {
  if (!sandbox.setupNetwork || sandbox.setupAllowHosts.length === 0) return null;
  return await startSetupProxy({ allow: sandbox.setupAllowHosts, narrow: declaration.network });
}

/** Whether the declaration is `setup_command` alone, whose failure the report names as it always has. */
function isSetupCommand(declaration: EnvironmentDeclaration): boolean {
  return declaration.source === ".github/magis.yml setup_command";
}

/** What a failed step lacked, when its output says (a command not found): "; the sandbox lacks the command `pip` (…)". */
function describeGap(run: TestRun): string {
  const gap = run.outcome === "failed" ? readEnvironmentFailure(run.tail) : null;
  return gap ? `; the sandbox lacks ${gap.missing} (\`${gap.line}\`)` : "";
}

export function secondsSince(started: number): number {
  return Math.round(performance.now() - started) / 1000;
}
