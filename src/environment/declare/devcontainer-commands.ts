import type { EnvironmentStep } from "../types.js";
import { DeclarationError } from "./declaration-error.js";
import { quoteCommand, quoteForShell } from "./quote-for-shell.js";

/** What the Dev Containers spec substitutes in a devcontainer.json (`${localEnv:HOME}`, `${containerWorkspaceFolder}`), which MAGIS does not. */
export const DEVCONTAINER_VARIABLE =
  /\$\{(?:localEnv|containerEnv|localWorkspaceFolder|containerWorkspaceFolder|localWorkspaceFolderBasename|containerWorkspaceFolderBasename|devcontainerId)\b[^}]*\}/;

/**
 * A lifecycle command (`onCreateCommand`, …) in any of the spec's three forms as one step, or null when it is empty:
 * a string is shell text; an array is a program and its arguments, quoted so the shell runs exactly them; an object
 * names commands (each a string or an array) that run at once, joined into one shell text that starts each in the
 * background, waits for all, and fails naming those that failed. A command using a variable the spec substitutes is
 * left out and named in `unsupported`.
 */
export function lifecycleStep(file: string, key: string, value: unknown, unsupported: string[]): EnvironmentStep | null {
  if (value === undefined) return null;
  if (typeof value === "string" || Array.isArray(value)) {
    const command = oneCommand(file, key, value, unsupported);
    return command === null ? null : { name: key, command: command.text };
  }
  if (value === null || typeof value !== "object") throw shapeError(file, key, value);
  const named = Object.entries(value as Record<string, unknown>).flatMap(([name, each]) => {
    const command = oneCommand(file, `${key}.${name}`, each, unsupported);
    return command === null ? [] : [{ name: `${key}.${name}`, ...command }];
  });
  if (named.length === 0) return null;
  if (named.length === 1) return { name: named[0]!.name, command: named[0]!.text };
  return { name: named.map((one) => one.name).join(" & "), command: inParallel(named) };
}

/** One command of a lifecycle key as shell text, with whether it must run in a shell of its own to be started in the background. */
function oneCommand(file: string, key: string, value: unknown, unsupported: string[]): { text: string; shell: boolean } | null {
  const words = typeof value === "string" ? [value] : Array.isArray(value) && value.every((word) => typeof word === "string") ? (value as string[]) : null;
  if (!words) throw shapeError(file, key, value);
  if (words.join("").trim() === "") return null;
  const variable = words.map((word) => DEVCONTAINER_VARIABLE.exec(word)?.[0]).find(Boolean);
  if (variable) {
    unsupported.push(
      `\`${key}\` is not run: it uses \`${variable}\`, which MAGIS does not substitute; commands run at the repository's root, so a relative path does instead`,
    );
    return null;
  }
  return typeof value === "string" ? { text: value, shell: true } : { text: quoteCommand(words), shell: false };
}

/** Commands that run at once, each in its own shell; the whole fails after all ended when any failed, naming which. */
function inParallel(named: { name: string; text: string; shell: boolean }[]): string {
  const lines = ["magis_failed=''"];
  named.forEach((one, at) => lines.push(`${one.shell ? `/bin/sh -c ${quoteForShell(one.text)}` : one.text} & magis_pid_${at}=$!`));
  named.forEach((one, at) => lines.push(`wait "$magis_pid_${at}" || magis_failed="$magis_failed"${quoteForShell(` ${one.name}`)}" (exit $?)"`));
  lines.push(`if [ -n "$magis_failed" ]; then echo "failed:$magis_failed" >&2; exit 1; fi`);
  return lines.join("\n");
}

function shapeError(file: string, key: string, value: unknown): DeclarationError {
  const kind =
    value === null
      ? "null"
      : Array.isArray(value)
        ? "an array holding something other than strings"
        : typeof value === "object"
          ? "an object inside an object"
          : `a ${typeof value}`;
  return new DeclarationError(
    file,
    `\`${key}\` is ${kind}`,
    "Make it a command (a string), a program and its arguments (an array of strings), or an object of named commands of those two forms, as the Dev Containers spec says",
  );
}
