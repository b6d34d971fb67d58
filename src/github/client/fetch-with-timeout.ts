/** Settings for a fetch that gives up: how long to wait, and what to tell the operator to change. */
export interface FetchTimeout {
  ms: number;
  /** The setting that sets `ms` (named in the error). */
  setting: string;
}

// Statuses whose responses have no body (the Response constructor refuses one).
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * A fetch that fails when the whole exchange (headers and body) has not finished within `timeout.ms`, with an error
 * that names the request and the setting. The error is an AbortError: Octokit passes those through unwrapped and its
 * retry plugin leaves them alone, so a GitHub that hangs costs one timeout, not one per retry.
 */
export function fetchWithTimeout(timeout: FetchTimeout): typeof fetch {
  return async (input, init = {}) => {
    const timer = AbortSignal.timeout(timeout.ms);
    const signal = init.signal ? AbortSignal.any([init.signal, timer]) : timer;
    try {
      // Looked up per call, so an interceptor installed after this module loaded (nock in tests) still sees the call.
      const response = await globalThis.fetch(input, { ...init, signal });
      // The body is read under the same deadline: a server that sends headers and then stalls is as stuck as a silent one,
      // and Octokit would otherwise turn the aborted read into empty data.
      const body = NO_BODY.has(response.status) ? null : await response.arrayBuffer();
      const copy = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
      Object.defineProperty(copy, "url", { value: response.url });
      return copy;
    } catch (error) {
      if (!timer.aborted || init.signal?.aborted) throw error;
      const method = init.method ?? "GET";
      const url = input instanceof Request ? input.url : String(input);
      const failure = new Error(
        `GitHub did not answer ${method} ${url} within ${timeout.ms} ms; it may be down or slow (https://www.githubstatus.com). ` +
          `Try again later, or raise ${timeout.setting} if GitHub is only slow.`,
        { cause: error },
      );
      failure.name = "AbortError";
      throw failure;
    }
  };
}
