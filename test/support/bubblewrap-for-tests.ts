import { bwrapSandbox, checkBwrap, DEFAULT_LIMITS, type SandboxLimits } from "../../src/sandbox/index.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";

/**
 * The real bubblewrap sandbox, with these limits and no network, for tests that run commands in it. .ci/run installs
 * bubblewrap: a machine without a working one fails here, saying why, rather than passing untested.
 */
export function bubblewrapForTests(limits: SandboxLimits = DEFAULT_LIMITS): Sandbox {
  const checked = checkBwrap({ limits, setupNetwork: false, searchPath: process.env.PATH ?? "" });
  if (!checked.ok) throw new Error(`these tests need a working bubblewrap: ${checked.why}`);
  return bwrapSandbox({ program: checked.program, limits, setupNetwork: false });
}
