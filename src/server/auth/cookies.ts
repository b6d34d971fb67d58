import type { IncomingMessage } from "node:http";

/** How a cookie is set: for how long, on which paths, and whether only over HTTPS. */
export interface CookieRule {
  maxAgeSeconds: number;
  path: string;
  secure: boolean;
}

/** The value of cookie `name` in the request's Cookie header, or undefined; a value that is not valid percent-encoding counts as absent. */
export function readCookie(request: IncomingMessage, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const pair of header.split(";")) {
    const at = pair.indexOf("=");
    if (at < 0 || pair.slice(0, at).trim() !== name) continue;
    try {
      return decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * A Set-Cookie header's value: HttpOnly (no script reads it) and SameSite=Lax (a cross-site form post does not carry
 * it, a link followed from GitHub does), with Max-Age and Path; Secure when the server is reached over HTTPS. An
 * empty value with a Max-Age of 0 removes the cookie.
 */
export function cookieHeader(name: string, value: string, rule: CookieRule): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Max-Age=${rule.maxAgeSeconds}`, `Path=${rule.path}`, "HttpOnly", "SameSite=Lax"];
  if (rule.secure) parts.push("Secure");
  return parts.join("; ");
}
