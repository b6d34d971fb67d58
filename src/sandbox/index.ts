// The sandbox's face: what the rest of src/ (and the benches and examples) use. Outside src/sandbox/, import from here or
// from sandbox.ts (its types) alone; .dependency-cruiser.cjs holds that rule.
export { chooseSandbox, SandboxUnavailableError, type SandboxChoice, type SandboxMode, type SandboxWanted } from "./choose-sandbox.js";
export { bwrapSandbox, checkBwrap } from "./bwrap-sandbox.js";
export { hostSandbox } from "./host-sandbox.js";
export { runEscapeProbes } from "./escape-probes.js";
export { startSetupProxy, type SetupProxy, type SetupProxyOptions } from "./setup-proxy.js";
export { DEFAULT_SETUP_HOSTS, setupAllowList } from "./setup-allow-list.js";
export { parseHostPattern } from "./host-patterns.js";
export { DEFAULT_LIMITS, type SandboxLimits } from "./sandbox-limits.js";
export type { CommandRun } from "./run-command.js";
export type { BotPath, HostTally, NetworkTally, Sandbox, SandboxKind, SandboxRun, SetupNetwork } from "./sandbox.js";
// For the language servers' bubblewrap jail (language-servers/confine-server.ts).
export { bindSystemDirs } from "./bind-system-dirs.js";
export { findProgram } from "./find-program.js";
export { maskInherited } from "./mask-inherited-fds.js";
