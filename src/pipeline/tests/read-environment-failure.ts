/** What a run's output says is missing from the environment the commands ran in, when it says so. */
export interface EnvironmentGap {
  /** What kind of thing is missing; `network`: a host the run tried to reach (the sandbox has no network, by design). */
  kind: "python-module" | "node-package" | "command" | "interpreter" | "network";
  /** Its name as the output gives it: `pytest`, `left-pad`, `tox`, `/root/.local/bin/pytest`, `httpbin.org` (or `the network`). */
  name: string;
  /** What is missing, as a phrase: "the Python module `pytest`", "the command `tox`". */
  missing: string;
  /** The line of the output that says so. */
  line: string;
}

/** Where a repository declares what its commands need, for the sentence that points there. */
export const DECLARE_ENVIRONMENT =
  "a setup step that installs it: `environment: setup:` in `.github/magis.yml` (or `setup_command`, `.devcontainer/devcontainer.json`, `copilot-setup-steps.yml`), run in the sandbox before the tests and the reproductions";

// The folders the sandbox shows of the host, besides the copy at /workspace and its own /tmp: a program elsewhere (a
// user's ~/.local, a pyenv shim, a runner's tool cache) is not there.
const SHOWN = /^\/(?:usr|etc|opt|bin|sbin|lib|lib32|lib64|libx32|workspace|tmp)(?:\/|$)/;

/**
 * Reads a run's output for the marks of a command that could not start for the environment's reasons: a command or an
 * interpreter not found, a program outside the folders the sandbox shows, a module the code imports not installed;
 * with `network`, also a host it could not reach (a name not resolved, no route): the sandbox gives the tests and the
 * reproductions no network, by design. Meant for runs on the untouched checkout (the setup, the tests before any
 * change, a reproduction), where such a failure is the environment's and never the change's. A missing thing comes
 * before a host (the first is what to declare); null when the output shows neither.
 */
export function readEnvironmentFailure(output: string, { network = false } = {}): EnvironmentGap | null {
  let unreached: EnvironmentGap | null = null;
  for (const line of output.split("\n")) {
    const text = line.trim();
    if (network) unreached ??= readUnreachedHost(text);
    const python = /\bNo module named ['"]?([\w.]+)['"]?/.exec(text);
    if (python) return { kind: "python-module", name: python[1]!, missing: `the Python module \`${python[1]}\``, line: text };
    const node = /\b(?:Cannot find module|Cannot find package) '([^']+)'/.exec(text);
    if (node && !node[1]!.startsWith(".") && !node[1]!.startsWith("/"))
      return { kind: "node-package", name: node[1]!, missing: `the Node package \`${node[1]}\``, line: text };
    // dash: "sh: 1: tox: not found"; bash: "bash: line 1: tox: command not found"; env: "env: 'tox': No such file or directory".
    const command =
      /^(?:\/bin\/)?(?:sh|bash)(?:: line \d+| \d+)?: (?:\d+: )?([^\s:]+): (?:command )?not found$/.exec(text) ??
      /^(?:\/usr\/bin\/)?env: ['‘]([^'’]+)['’]: No such file or directory$/.exec(text);
    if (command) {
      const name = command[1]!;
      if (name.startsWith("/") && !SHOWN.test(name))
        return { kind: "command", name, missing: `\`${name}\`, which lies outside the system folders the sandbox shows`, line: text };
      return { kind: "command", name, missing: `the command \`${name}\``, line: text };
    }
    // A script whose first line names an interpreter that is not there.
    const interpreter = /: ([^\s:]+): (?:bad interpreter: No such file or directory|cannot execute: required file not found)/.exec(text);
    if (interpreter)
      return { kind: "interpreter", name: interpreter[1]!, missing: `the interpreter that \`${interpreter[1]}\` names on its first line`, line: text };
  }
  return unreached;
}

// How a name that did not resolve, or a network with no route, is printed: Python (socket, urllib, requests and urllib3),
// Node (`getaddrinfo EAI_AGAIN host`, ENOTFOUND where a resolver answers), curl and git, wget. A pattern's group is
// the host, where the line gives one; else urllib3's `host='…'` on the same line names it.
const UNREACHED: readonly RegExp[] = [
  /\bgetaddrinfo (?:ENOTFOUND|EAI_AGAIN|EAI_NODATA|EAI_NONAME|EAI_FAIL)(?: ([^\s:'"]+))?/,
  /\bCould not resolve host:? '?([^\s';]+)?/,
  /\bunable to resolve host address ['‘]([^'’]+)['’]/,
  /\bFailed to resolve '([^']+)'/,
  /\b(?:Temporary failure in name resolution|Name or service not known|No address associated with hostname)\b/,
  /\b(?:Network is unreachable|ENETUNREACH)\b/,
];

/** The host a line (trimmed) says could not be reached, as a gap of kind `network`; null for any other line. */
export function readUnreachedHost(text: string): EnvironmentGap | null {
  for (const pattern of UNREACHED) {
    const match = pattern.exec(text);
    if (!match) continue;
    const host = match[1] ?? /\bhost='([^']+)'/.exec(text)?.[1];
    return { kind: "network", name: host ?? "the network", missing: host ? `network access (to \`${host}\`)` : "network access", line: text };
  }
  return null;
}

/** The sentence for the report: what the environment lacks, and where to declare it (or, for a host, why none is given). */
export function describeEnvironmentGap(gap: EnvironmentGap): string {
  const line = gap.line.length > 160 ? `${gap.line.slice(0, 160)}…` : gap.line;
  if (gap.kind === "network") {
    const host = gap.name === "the network" ? "" : `, so \`${gap.name}\` could not be reached`;
    return `the sandbox has no network for the tests and the reproductions, by design${host} (\`${line}\`); a reproduction must not need one: it shows the issue with the repository's own code (a server it starts on 127.0.0.1, a fixture or a mock stands in for a remote host)`;
  }
  return `the environment lacks ${gap.missing} (\`${line}\`); declare it with ${DECLARE_ENVIRONMENT}`;
}
