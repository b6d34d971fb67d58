import type { Context } from "probot";
import type { EnvironmentShelf } from "../../environment/index.js";
import type { JobQueue, JobRunner } from "../../jobs/job-queue.js";
import { redactSecrets } from "../../lib/redact-secrets.js";
import { repositoryKey } from "../../store/jobs.js";
import type { SessionStore } from "../../store/sessions.js";
import type { JobStore, MemoryStore } from "../../store/store.js";

/** The webhooks after which the app can no longer reach a repository: its installation removed, or the repository taken from it. */
export const UNINSTALL_EVENTS = ["installation.deleted", "installation_repositories.removed"] as const;

/** One of UNINSTALL_EVENTS. */
export type UninstallEvent = (typeof UNINSTALL_EVENTS)[number];

/** Why a job of such a repository was cancelled; also how its runner knows to forget what it wrote (see forgetWhenCancelled). */
export const UNINSTALLED_REASON = "the app was uninstalled from the repository";

/** What one such webhook removes: the repositories taken from an installation, or every repository of the account that removed it. */
export function uninstalledBy(event: string, payload: unknown): { repos: string[] } | { owners: string[] } | null {
  // Read defensively: every field may be missing from a payload that is not what its event promises.
  const fields = (payload ?? {}) as { installation?: { account?: { login?: unknown } }; repositories_removed?: unknown };
  if (event === "installation.deleted") {
    const login = fields.installation?.account?.login;
    return typeof login === "string" ? { owners: [login.toLowerCase()] } : null;
  }
  if (event === "installation_repositories.removed" && Array.isArray(fields.repositories_removed)) {
    const names = fields.repositories_removed.map((repo: { full_name?: unknown }) => repo.full_name);
    return { repos: names.filter((name): name is string => typeof name === "string").map((name) => name.toLowerCase()) };
  }
  return null;
}

/** How a log line names what was removed. */
function describe(which: { repos: string[] } | { owners: string[] }): string {
  return "owners" in which
    ? `the app was removed by ${which.owners.join(", ")}, from all its repositories`
    : `${which.repos.join(", ")} taken from the installation`;
}

/** What the handler needs of the app. */
export interface UninstallServices {
  memory: MemoryStore;
  /** The jobs' sessions, which show the repositories' code, prompts and command output. */
  sessions: Pick<SessionStore, "forget">;
  jobs: JobStore;
  queue: JobQueue;
  /** The environments kept on this machine (absent: none kept here). */
  environments?: Pick<EnvironmentShelf, "remove">;
  log: { info: (obj: object, msg: string) => void; warn: (obj: object, msg: string) => void };
}

/**
 * Forgets what the app holds of repositories it was uninstalled from, as soon as GitHub says so: their queued and
 * running jobs are cancelled, the evolution memory's files (the text and summary of each file the Custodian read)
 * and the sessions of their jobs forgotten, and the environments kept for them on this machine removed (the installation's, or the repositories'). An account that removes the app has one installation, so all its repositories go. A running job may
 * still finish a summary it had begun; it forgets its repository again when it ends (see forgetWhenCancelled). Kept
 * objects on the workers' disks age out instead (MAGIS_OBJECT_CACHE_DAYS). A store that fails fails the webhook,
 * which GitHub's delivery log then shows and can send again.
 */
export function forgetUninstalled({ memory, sessions, jobs, queue, environments, log }: UninstallServices) {
  return async (context: Context<UninstallEvent>): Promise<void> => {
    const event = `${context.name}.${context.payload.action}`;
    const which = uninstalledBy(event, context.payload);
    if (!which || ("repos" in which && which.repos.length === 0)) return;
    const installation = context.payload.installation.id;
    const affected = (job: { owner: string; repo: string }) =>
      "owners" in which ? which.owners.includes(job.owner.toLowerCase()) : which.repos.includes(repositoryKey(job.owner, job.repo));
    try {
      const active = [...(await jobs.withStatus("queued")), ...(await jobs.withStatus("running"))].filter(affected);
      let cancelled = 0;
      for (const key of new Set(active.map((job) => job.key))) cancelled += await queue.cancel(key, UNINSTALLED_REASON);
      const forgotten = await memory.forget(which);
      const files = forgotten === 1 ? "1 file" : `${forgotten} files`;
      const sessionsForgotten = await sessions.forget(which);
      const removed = !environments
        ? 0
        : "owners" in which
          ? environments.remove({ installationId: installation })
          : which.repos.reduce((sum, repo) => sum + environments.remove({ repo, installationId: installation }), 0);
      log.info(
        { delivery: context.id, event, installation, ...which, cancelled, forgotten, sessions: sessionsForgotten, environments: removed },
        `${describe(which)}: cancelled ${cancelled} of their jobs and forgot the ${files} the memory held of them and the sessions of ${sessionsForgotten === 1 ? "1 job" : `${sessionsForgotten} jobs`}, and removed ${removed === 1 ? "1 environment" : `${removed} environments`} kept for them`,
      );
    } catch (error) {
      log.warn(
        { delivery: context.id, event, installation, error: redactSecrets(String(error), []) },
        `${describe(which)}, but what the app holds of them could not all be forgotten; redeliver this webhook from the app's advanced settings to try again`,
      );
      throw error;
    }
  };
}

/**
 * The runner, forgetting its job's repository in the memory and the sessions once a job cancelled because the app was
 * uninstalled has ended: whatever it wrote between the webhook's forgetting and its stop (a worker sees a cancellation
 * at its next heartbeat) goes too. Every write of a job's stage has settled by the time its runner ends.
 */
export function forgetWhenCancelled(
  run: JobRunner,
  { memory, sessions }: Pick<UninstallServices, "memory" | "sessions">,
  log: UninstallServices["log"],
): JobRunner {
  return async (job, progress) => {
    try {
      return await run(job, progress);
    } finally {
      const reason = progress.signal.reason as { message?: unknown } | undefined;
      if (progress.signal.aborted && reason?.message === UNINSTALLED_REASON) {
        const repos = [repositoryKey(job.owner, job.repo)];
        await Promise.all([memory.forget({ repos }), sessions.forget({ repos })]).catch((error: unknown) => {
          log.warn(
            { job: job.id, error: redactSecrets(String(error), []) },
            `could not forget what the memory and the sessions hold of ${repos[0]} after its cancelled job ended`,
          );
        });
      }
    }
  };
}
