import type { GitHttpRequest, GitHttpResponse, HttpClient } from "isomorphic-git";

/** A request's body, which isomorphic-git types as an iterator and sends as an array of parts: whole, so that it goes with a Content-Length. */
async function wholeBody(body: GitHttpRequest["body"]): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (!body) return undefined;
  const parts: Uint8Array[] = [];
  for await (const part of body) parts.push(part);
  return new Uint8Array(Buffer.concat(parts));
}

/**
 * The parts of a response's body; stopping early (a reader that has what it wanted) cancels the stream. A connection
 * that breaks before the answer's end fails the next read, saying so, whenever it broke.
 */
async function* partsOf(body: ReadableStream<Uint8Array>, url: string): AsyncIterableIterator<Uint8Array> {
  try {
    for await (const part of body) yield part;
  } catch (error) {
    if ((error as { name?: unknown }).name === "AbortError") throw error;
    const { origin, pathname } = new URL(url);
    const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new Error(`the git server's connection for ${origin}${pathname} broke in the middle of its answer (${cause}); try again later`, { cause: error });
  }
}

/**
 * What a request that got no answer failed on, as Node's own client says it: fetch's "fetch failed" says nothing, its
 * cause does, and a connection closed before any answer (undici's UND_ERR_SOCKET) is the ECONNRESET that a caller may
 * ask again on (see againIfDropped). An abort stays as it is.
 */
function requestFailure(error: unknown, method: string, url: string): unknown {
  if (!(error instanceof Error) || error.name === "AbortError") return error;
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const code = cause?.code === "UND_ERR_SOCKET" ? "ECONNRESET" : cause?.code;
  const { origin, pathname } = new URL(url);
  const reason = typeof cause?.message === "string" ? cause.message : error.message;
  return Object.assign(
    new Error(`${method} ${origin}${pathname} failed: ${reason}${code === undefined ? "" : ` (${String(code)})`}`, { cause: error }),
    code === undefined ? {} : { code },
  );
}

/**
 * git's smart HTTP requests over Node's own fetch, as isomorphic-git's HttpClient. Not isomorphic-git's Node client: an
 * error of its response (a connection reset in the middle of a pack) is lost when no read is waiting at that moment,
 * so the next read waits out the idle bound and blames a silent server; and once its body is closed (which removes
 * every listener of the response, Node's own among them) the same socket's next error ends the whole process as an
 * uncaught "aborted". bench:clone's first job on sympy with kept objects ended so on every run. A fetch body's
 * stream fails its next read with the error, whenever it came, and ends or is cancelled cleanly.
 */
export const fetchGitHttp: HttpClient = {
  request: async ({ url, method = "GET", headers = {}, body, signal }: GitHttpRequest): Promise<GitHttpResponse> => {
    const sent = await wholeBody(body);
    const response = await fetch(url, { method, headers, ...(sent && { body: sent }), ...(signal && { signal }) }).catch((error: unknown) => {
      throw requestFailure(error, method, url);
    });
    return {
      url: response.url,
      method,
      statusCode: response.status,
      statusMessage: response.statusText,
      headers: Object.fromEntries(response.headers),
      ...(response.body && { body: partsOf(response.body, url) }),
    };
  },
};
