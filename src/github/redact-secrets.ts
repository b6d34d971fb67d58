/** Replaces every occurrence of each secret (tokens, keys) in `text` with `[redacted]`; empty secrets are ignored. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join("[redacted]");
  }
  // Installation and user tokens have a recognisable shape; catch ones we were not told about too.
  return out.replace(/\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, "[redacted]").replace(/x-access-token:[^@\s]+@/g, "x-access-token:[redacted]@");
}
