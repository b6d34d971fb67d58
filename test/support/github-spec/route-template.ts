/** A route as GitHub's OpenAPI description names it: the method, a space, the path template (`GET /repos/{owner}/{repo}`). */
export type RouteKey = string;

/** A route template compiled for matching request paths; `literals` ranks it against others a path also matches. */
export interface RouteMatcher {
  key: RouteKey;
  method: string;
  literals: number;
  /** The path parameters, decoded, when `rawPath` (encoded, without its query) is this route's; else undefined. */
  match(rawPath: string): Record<string, string> | undefined;
}

// GitHub takes a file's path with its slashes as they are; every other parameter is one segment (a branch name's
// slashes arrive encoded, as Octokit sends them).
const SPANS_SEGMENTS = new Set(["path"]);

/** Compiles `METHOD /path/{param}` into a matcher of encoded request paths. */
export function compileRoute(key: RouteKey): RouteMatcher {
  const [method, template] = key.split(" ") as [string, string];
  const names: string[] = [];
  const source = template.replace(/\{(\w+)\}|[^{]+/g, (part, name?: string) => {
    if (!name) return part.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
    names.push(name);
    return SPANS_SEGMENTS.has(name) ? "(.+)" : "([^/]+)";
  });
  const pattern = new RegExp(`^${source}$`);
  return {
    key,
    method,
    literals: template.split("/").filter((segment) => segment && !segment.startsWith("{")).length,
    match(rawPath) {
      const found = pattern.exec(rawPath);
      if (!found) return undefined;
      return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1]!)]));
    },
  };
}

/** The route of `matchers` that `method` and `rawPath` (with or without its query) fall on: the most specific when several do. */
export function findRoute<T extends RouteMatcher>(matchers: T[], method: string, rawPath: string): { route: T; params: Record<string, string> } | undefined {
  const pathOnly = rawPath.split("?")[0]!;
  let best: { route: T; params: Record<string, string> } | undefined;
  for (const route of matchers) {
    if (route.method !== method.toUpperCase()) continue;
    const params = route.match(pathOnly);
    if (params && (!best || route.literals > best.route.literals)) best = { route, params };
  }
  return best;
}
