import type { Octokit } from "../types.js";

/**
 * One GitHub request as the client made it: its method and route (the URL template, never a value in it; a GraphQL
 * request names its top-level fields), when the code asked for it, when it went out (after Octokit's throttling made
 * it wait its turn), when its answer was read, and its status (0 when no answer came). Times are ms since the epoch.
 */
export interface RequestTiming {
  method: string;
  route: string;
  askedAt: number;
  sentAt: number;
  endedAt: number;
  status: number;
}

type RequestOptions = { method: string; url: string; query?: unknown; request?: { fetch?: typeof fetch } };

/**
 * Tells `observe` of every request `octokit` makes from now on. Registered after the client's plugins, so it wraps
 * them: `askedAt` is before the throttling's wait, `sentAt` when the request reached the network (the last try, if the
 * retry plugin tried again).
 */
export function timeRequests(octokit: Octokit, observe: (timing: RequestTiming) => void, now: () => number = Date.now): void {
  octokit.hook.wrap("request", async (request, options) => {
    const asked = options as unknown as RequestOptions;
    const askedAt = now();
    let sentAt = askedAt;
    const send = asked.request?.fetch ?? globalThis.fetch;
    const timed: typeof fetch = (input, init) => {
      sentAt = now();
      return send(input, init);
    };
    const route = asked.url === "/graphql" ? `/graphql ${graphqlFields(asked.query)}` : asked.url;
    let status = 0;
    try {
      // Set on the options object itself: the hooks inside this one were bound to it, and a copy would not reach them.
      options.request = { ...options.request, fetch: timed };
      const response = await request(options);
      status = response.status;
      return response;
    } catch (error) {
      status = (error as { status?: number }).status ?? 0;
      throw error;
    } finally {
      observe({ method: asked.method, route, askedAt, sentAt, endedAt: now(), status });
    }
  });
}

/** The top-level fields of a GraphQL document (`updateRefs createCommitOnBranch`), which say what a request does. */
function graphqlFields(query: unknown): string {
  if (typeof query !== "string") return "";
  // Arguments (which may hold input objects' braces) go first; then a field is a word at the outermost selection, after its alias.
  const selection = query.slice(query.indexOf("{") + 1).replace(/\([^()]*\)/g, "");
  const fields: string[] = [];
  let depth = 0;
  for (const [token, , aliased, plain] of selection.matchAll(/([{}])|\w+\s*:\s*(\w+)|(\w+)/g)) {
    if (token === "{") depth++;
    else if (token === "}") depth--;
    else if (depth === 0) fields.push((aliased ?? plain)!);
  }
  return fields.join(" ");
}
