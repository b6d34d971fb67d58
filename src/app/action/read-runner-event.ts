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
    const read = readEventFile(eventPath);
    if (typeof read === "string") problems.push(`GITHUB_EVENT_PATH (${eventPath}) ${read}`);
    else payload = read;
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

/** GitHub caps a webhook's payload at 25 MB; the runner writes the event it started the run with, no larger. */
const MAX_EVENT_BYTES = 25 * 1024 * 1024;
/** Deeper than any payload GitHub sends; a deeper one would take the parser's stack. */
const MAX_EVENT_DEPTH = 256;

/**
 * The event file as a JSON object, or what is wrong with it. Only a regular file is opened (a FIFO would block the step,
 * a device such as /dev/zero never ends), and no more than MAX_EVENT_BYTES of it is read.
 */
function readEventFile(file: string): Record<string, unknown> | string {
  let bytes: Buffer;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return "is not a regular file; it must be the event file the runner wrote";
    if (stat.size > MAX_EVENT_BYTES) return `is ${stat.size} bytes, more than GitHub's 25 MB cap on an event`;
    const fd = fs.openSync(file, "r");
    try {
      bytes = Buffer.alloc(Math.min(stat.size, MAX_EVENT_BYTES) + 1);
      bytes = bytes.subarray(0, fs.readSync(fd, bytes, 0, bytes.length, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    return `could not be read: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (bytes.length > MAX_EVENT_BYTES) return "grew past GitHub's 25 MB cap on an event while it was read";
  const text = bytes.toString("utf8");
  if (nestingDepth(text) > MAX_EVENT_DEPTH) return `nests its JSON more than ${MAX_EVENT_DEPTH} levels deep; no GitHub event does`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `could not be read as JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return "does not hold a JSON object; an event is one";
  return parsed as Record<string, unknown>;
}

/** How deep the brackets of a JSON text nest, outside its strings (one linear pass; the text need not be valid). */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") deepest = Math.max(deepest, ++depth);
    else if (c === "]" || c === "}") depth--;
  }
  return deepest;
}
