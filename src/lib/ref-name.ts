/**
 * Why git would refuse `name` as a branch name (the rules of `git check-ref-format --branch`), or null when it takes
 * it: no `..`, `//`, `@{` or backslash; no control character, space, `~ ^ : ? * [`; no part (between slashes) that
 * begins with a dot or ends with `.lock`; no leading `/` or `-`, no trailing `/` or `.`; not `@`.
 */
export function refNameProblem(name: string): string | null {
  if (name === "" || name === "@") return "it is empty or '@'";
  // eslint-disable-next-line no-control-regex
  const bad = /[\x00-\x20\x7f~^:?*[\\]/.exec(name);
  if (bad) return `it holds ${bad[0] === " " ? "a space" : bad[0] < " " || bad[0] === "\x7f" ? "a control character" : `'${bad[0]}'`}`;
  for (const sequence of ["..", "//", "@{"]) if (name.includes(sequence)) return `it holds '${sequence}'`;
  if (name.startsWith("/") || name.endsWith("/")) return "it begins or ends with '/'";
  if (name.startsWith("-")) return "it begins with '-'";
  if (name.endsWith(".")) return "it ends with '.'";
  const part = name.split("/").find((p) => p.startsWith(".") || p.endsWith(".lock"));
  if (part !== undefined) return `its part '${part}' ${part.startsWith(".") ? "begins with '.'" : "ends with '.lock'"}`;
  return null;
}
