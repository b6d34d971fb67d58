import type { IncomingMessage } from "node:http";
import { readBodyWithin } from "../read-body-within.js";

/** The page's forms hold a CSRF token and at most a short guidance: anything longer is not from the page. */
export const MAX_FORM_BYTES = 16 * 1024;

/**
 * The fields of a URL-encoded form POSTed by the session page, or why it cannot be read (too long, or not a form), in
 * words for the person who sent it.
 */
export async function readForm(request: IncomingMessage): Promise<{ ok: true; fields: URLSearchParams } | { ok: false; why: string }> {
  const type = String(request.headers["content-type"] ?? "")
    .split(";")[0]!
    .trim();
  if (type !== "application/x-www-form-urlencoded") {
    return { ok: false, why: `the request is not a form of the session page (Content-Type ${type || "missing"}); use the page's buttons` };
  }
  const body = await readBodyWithin(request, MAX_FORM_BYTES);
  if (!body.ok) return { ok: false, why: `the form has more than ${MAX_FORM_BYTES} bytes; shorten the guidance and send it again` };
  return { ok: true, fields: new URLSearchParams(body.text) };
}
