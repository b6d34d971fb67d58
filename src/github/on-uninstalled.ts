import type { Context } from "probot";
import { redactSecrets } from "../redact-secrets.js";
import type { MemoryStore } from "../store/store.js";

/** The webhooks after which the app can no longer reach a repository: its installation removed, or the repository taken from it. */
export const UNINSTALL_EVENTS = ["installation.deleted", "installation_repositories.removed"];

/** What one such webhook removes: the repositories taken from an installation, or every repository of the account that removed it. */
export function uninstalledBy(event: string, payload: any): { repos: string[] } | { owners: string[] } | null {
  if (event === "installation.deleted") {
    const login = payload.installation?.account?.login;
    return typeof login === "string" ? { owners: [login.toLowerCase()] } : null;
  }
  if (event === "installation_repositories.removed" && Array.isArray(payload.repositories_removed)) {
    const repos = payload.repositories_removed.map((repo: { full_name?: unknown }) => repo.full_name).filter((name: unknown): name is string => typeof name === "string");
    return { repos: repos.map((name: string) => name.toLowerCase()) };
  }
  return null;
}

/**
 * Forgets what the evolution memory holds of repositories the app was uninstalled from (the text and summary of each
 * file the Custodian read), as soon as GitHub says so; an account that removes the app has one installation, so all
 * its repositories go. Kept objects on the workers' disks age out instead (MAGIS_OBJECT_CACHE_DAYS). A store that fails
 * fails the webhook, which GitHub's delivery log then shows and can send again.
 */
export function forgetUninstalled(memory: MemoryStore, log: { info: (obj: object, msg: string) => void; warn: (obj: object, msg: string) => void }) {
  return async (context: Context<any>): Promise<void> => {
    const event = `${context.name}.${(context.payload as { action?: string }).action}`;
    const which = uninstalledBy(event, context.payload);
    if (!which || ("repos" in which && which.repos.length === 0)) return;
    const installation = (context.payload as { installation?: { id?: number } }).installation?.id;
    const named = "owners" in which ? `every repository of ${which.owners.join(", ")}` : which.repos.join(", ");
    try {
      const forgotten = await memory.forget(which);
      log.info({ delivery: context.id, event, installation, ...which, forgotten }, `the app was uninstalled from ${named}: forgot the ${forgotten} files the memory held of it`);
    } catch (error) {
      log.warn({ delivery: context.id, event, installation, error: redactSecrets(String(error), []) }, `could not forget what the memory holds of ${named}; redeliver this webhook from the app's advanced settings to try again`);
      throw error;
    }
  };
}
