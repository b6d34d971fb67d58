import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * A value as a cookie carries it: its JSON in base64url, a dot, and the HMAC-SHA256 of that text under `key`. The
 * JSON is readable by whoever holds the cookie; only the key's holder can make one that `readSigned` takes.
 */
export function signValue(key: string, value: object): string {
  const body = Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
  return `${body}.${macOf(key, body)}`;
}

/** The value `signValue` signed under `key`, or null when the text is not one (tampered, cut, signed with another key). */
export function readSigned(key: string, text: string | undefined): unknown {
  if (!text) return null;
  const dot = text.lastIndexOf(".");
  if (dot <= 0) return null;
  const body = text.slice(0, dot);
  const given = Buffer.from(text.slice(dot + 1), "base64url");
  const wanted = Buffer.from(macOf(key, body), "base64url");
  // timingSafeEqual throws on lengths that differ; a cut signature is simply wrong.
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return null;
  try {
    return JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as unknown;
  } catch {
    return null;
  }
}

/** Whether two texts are equal, in a time that does not tell how much of them matched. */
export function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The base64url HMAC-SHA256 of `text` under `key`. */
export function macOf(key: string, text: string): string {
  return createHmac("sha256", key).update(text, "utf8").digest("base64url");
}
