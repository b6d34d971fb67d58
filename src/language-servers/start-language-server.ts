import { LanguageServerError } from "./errors.js";
import { openDocumentSession } from "./open-document-session.js";
import { serverSpec } from "./server-specs.js";
import { NO_ENVIRONMENT, showEnvironment } from "./show-environment.js";
import { spawnServer } from "./spawn-server.js";
import type { LanguageServer, ServerContainment, ServerEnvironment, ServerLanguage, ServerLimits } from "./types.js";

/**
 * Starts the language server of `language` on the checkout `root`, in a process group of its own with an empty
 * environment (no PATH, no credentials; TMPDIR and HOME a folder of its own), under `limits`, in a bubblewrap jail that
 * shows it the checkout and our own packages alone (see confinedArgv): a repository's config (`extraPaths`, `paths`),
 * imports (`from ....x`, `/abs/path`) and links cannot make it read a host file into what it reports. It never runs a
 * program the repository chooses: see server-specs.ts. The folders of `environment` (a job's installed packages) are
 * shown to it read-only, those that lie inside the environment alone (see showEnvironment). Rejects with a
 * LanguageServerError when it cannot be started or does not start in time (the group is killed then).
 */
export async function startLanguageServer(
  root: string,
  language: ServerLanguage,
  limits: ServerLimits,
  { environment = NO_ENVIRONMENT, ...containment }: ServerContainment & { environment?: ServerEnvironment } = { allowUncontained: false },
): Promise<LanguageServer> {
  const spec = serverSpec(language);
  let launch;
  try {
    launch = spec.launch(root, limits.memoryMb, showEnvironment(root, environment));
  } catch (error) {
    throw new LanguageServerError(`the ${language} language server is not installed (${String(error)}); reinstall dependencies with \`npm ci\``);
  }
  const server = await spawnServer(root, language, launch, { limits, containment });
  return openDocumentSession(root, language, spec, server);
}
