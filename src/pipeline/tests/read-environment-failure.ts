/** What a run's output says is missing from the environment the commands ran in, when it says so. */
export interface EnvironmentGap {
  /** What kind of thing is missing. */
  kind: "python-module" | "node-package" | "command" | "interpreter";
  /** Its name as the output gives it: `pytest`, `left-pad`, `tox`, `/root/.local/bin/pytest`. */
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
 * interpreter not found, a program outside the folders the sandbox shows, a module the code imports not installed.
 * Meant for runs on the untouched checkout (the setup, the tests before any change), where such a failure is the
 * environment's and never the change's. Null when the output shows none.
 */
export function readEnvironmentFailure(output: string): EnvironmentGap | null {
  for (const line of output.split("\n")) {
    const text = line.trim();
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
  return null;
}

/** The sentence for the report: what the environment lacks, and where to declare it. */
export function describeEnvironmentGap(gap: EnvironmentGap): string {
  return `the environment lacks ${gap.missing} (\`${gap.line.length > 160 ? `${gap.line.slice(0, 160)}…` : gap.line}\`); declare it with ${DECLARE_ENVIRONMENT}`;
}
