// The language servers' face: what the rest of src/ (and the benches) use. Outside src/language-servers/, import from
// here or from types.ts alone; .dependency-cruiser.cjs holds that rule.
export { openLanguageServers, type ChangeCheck, type LanguageServers, type RulesByLanguage } from "./open-language-servers.js";
export { startLanguageServer } from "./start-language-server.js";
export { nameWorkspace } from "./name-workspace.js";
export type { UntouchedStore } from "./remember-untouched.js";
export { LanguageServerError, LateReferencesError } from "./errors.js";
export type { AddedProblem } from "./added-diagnostics.js";
export type { FileText, LanguageServer, Placement, ServerContainment, ServerEnvironment, ServerLanguage, ServerLimits } from "./types.js";
