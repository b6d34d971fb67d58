/** Where a visitor goes when where they came from cannot be trusted. */
export const HOME = "/";

/** Longer than any path of this server's pages; a longer one is not one of them. */
const MAX_LENGTH = 2_000;

/**
 * `raw` when it is a path on this server (`/jobs/12?x=1`), else HOME: no scheme, no host, no protocol-relative
 * `//evil.example`, no backslash (browsers read `/\evil.example` as a host), no control character. The sign-in's
 * return_to passes through it, so the sign-in can never send a visitor to another site.
 */
export function safeReturnPath(raw: string | null | undefined): string {
  if (!raw || raw.length > MAX_LENGTH || !raw.startsWith("/") || raw.startsWith("//")) return HOME;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\\\u0000-\u001f\u007f]/.test(raw)) return HOME;
  const base = "http://this.server";
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return HOME;
  }
  if (url.origin !== base) return HOME;
  return `${url.pathname}${url.search}${url.hash}`;
}
