import type { ServerEnvironment } from "./types.js";

/**
 * `value` (an environment, a server's settings) with every host folder in it written relative to the folder it lies
 * in: the checkout (`<checkout>`) or one of the environment's roots (`<root 0>`, …), the deepest that holds it. Two
 * jobs with one kept environment see it at host folders of their own (`<checkout>.tests/own/set-up`), holding the
 * same files: written so, their untouched files' diagnostics share a key. Only an environment with a key (see
 * ServerEnvironment.key) is written so; without one, its folders are all that tell it apart, and stay as they are.
 */
export function portableFolders<T>(value: T, root: string, environment: ServerEnvironment): T {
  if (environment.key === undefined) return value;
  const bases = [{ dir: root, name: "<checkout>" }, ...environment.roots.map((dir, i) => ({ dir, name: `<root ${i}>` }))].sort(
    (a, b) => b.dir.length - a.dir.length,
  );
  const place = (text: string) => {
    const base = bases.find(({ dir }) => text === dir || text.startsWith(`${dir}/`));
    return base ? `${base.name}${text.slice(base.dir.length)}` : text;
  };
  return mapStrings(value, place) as T;
}

/** `value` with each string in it (not the keys of its objects) replaced by `change` of it. */
function mapStrings(value: unknown, change: (text: string) => string): unknown {
  if (typeof value === "string") return change(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, change));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, change)]));
  return value;
}
