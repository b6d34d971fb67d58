import fs from "node:fs";

/** The event a workflow run was started by, and where to answer it, as the Actions runner describes them. */
export interface RunnerEvent {
  /** `issues`, `issue_comment`, `pull_request_review`, … */
  name: string;
  payload: Record<string, unknown>;
  owner: string;
  repo: string;
  /** The REST API's base URL (GitHub Enterprise Server has its own). */
  apiUrl: string;
  token: string;
  /** Names this run's trigger: `actions-<run id>-<attempt>`. */
  delivery: string;
}

/** What is wrong with the runner's environment, every problem at once, in words a workflow author can act on. */
export class RunnerEnvError extends Error {}

/** What the runner sets for a step (the settings' `runner` part). */
export interface RunnerSettings {
  eventName?: string;
  eventPath?: string;
  repository?: string;
  token?: string;
  apiUrl: string;
  runId: string;
  runAttempt: string;
}

/**
 * Reads the event of the workflow run from the variables every Actions runner sets (GITHUB_EVENT_NAME,
 * GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_RUN_ID) and the token (GITHUB_TOKEN), as readSettings read them.
 */
export function readRunnerEvent(runner: RunnerSettings): RunnerEvent {
  const problems: string[] = [];
  const need = (name: string, value: string | undefined) => {
    if (!value) problems.push(`${name} is not set`);
    return value ?? "";
  };
  const name = need("GITHUB_EVENT_NAME", runner.eventName);
  const eventPath = need("GITHUB_EVENT_PATH", runner.eventPath);
  const repository = need("GITHUB_REPOSITORY", runner.repository);
  const token = need("GITHUB_TOKEN", runner.token);
  const [owner, repo, extra] = repository.split("/");
  if (repository && (!owner || !repo || extra !== undefined)) problems.push(`GITHUB_REPOSITORY is '${repository}', not owner/name`);
  let payload: Record<string, unknown> = {};
  if (eventPath) {
    try {
      payload = JSON.parse(fs.readFileSync(eventPath, "utf8")) as Record<string, unknown>;
    } catch (error) {
      problems.push(`GITHUB_EVENT_PATH (${eventPath}) could not be read as JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (problems.length > 0) {
    throw new RunnerEnvError(
      `magis action needs the environment of a GitHub Actions step: ${problems.join("; ")}. ` +
        "Run it as the action's step (see examples/github-action/magis.yml), with `github_token` set (default: the workflow's token).",
    );
  }
  return {
    name,
    payload,
    owner: owner!,
    repo: repo!,
    apiUrl: runner.apiUrl,
    token,
    delivery: `actions-${runner.runId}-${runner.runAttempt}`,
  };
}
