import type { IncomingMessage } from "node:http";

/**
 * A request body read up to a limit: its text; or how many bytes had arrived when it passed the limit (`over`), or
 * when the server could hold no more of it (`busy`, see BodyBudget).
 */
export type BoundedBody = { ok: true; text: string } | { ok: false; reason: "over" | "busy"; bytes: number };

/**
 * Reads a request body as UTF-8 text, refusing it as soon as it is known to pass `maxBytes`: at once when
 * Content-Length says so (nothing is read), or when a chunked body grows past it (reading stops there and the
 * chunks are dropped). Each chunk is taken from `take` first; when it refuses, reading stops the same way. The caller
 * answers and then closes the connection. Rejects if the client goes away first.
 */
export function readBodyWithin(request: IncomingMessage, maxBytes: number, take: (bytes: number) => boolean = () => true): Promise<BoundedBody> {
  const declared = Number(request.headers["content-length"]);
  if (declared > maxBytes) return Promise.resolve({ ok: false, reason: "over", bytes: declared });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const stop = () => {
      request.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      // Paused, not destroyed: destroying the request would close the socket before the caller can answer.
      request.pause();
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      const over = bytes > maxBytes;
      if (!over && take(chunk.length)) return void chunks.push(chunk);
      stop();
      chunks.length = 0;
      resolve({ ok: false, reason: over ? "over" : "busy", bytes });
    };
    const onEnd = () => {
      stop();
      resolve({ ok: true, text: Buffer.concat(chunks).toString("utf8") });
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => onError(new Error("the client closed the connection before the whole body arrived"));
    request.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}
