// The one place that scrubs secrets from text the project writes anywhere: errors, traces, logs, and the comments
// and descriptions it posts on GitHub.

// Shapes of common credentials, removed even when we were not told the exact value.
const CREDENTIAL_SHAPES = [
  // Credentials written into a URL (an OPENAI_BASE_URL such as https://user:key@proxy/v1, a git remote with
  // x-access-token:…@). First, so that "token:" in the user part does not take the host along below.
  /(?<=\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@:"']+:[^\s/@"']+(?=@)/gi,
  // Keys run long (and hold a digit, checked in redactSecrets: "packages/pk-utilities-and-more" is a folder name). The
  // match takes the whole run; a lookahead for the digit here rescanned the run at every "sk-" in it (quadratic).
  /\b(?:sk|rk|pk)-[A-Za-z0-9_-]{12,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  // Values of 12 characters or more: "Bearer token missing" and "Unexpected token = in JSON" are messages, not secrets.
  /\bBearer\s+[^\s"',]{12,}/gi,
  /\b(api[_-]?key|token)(["']?\s*[:=]\s*["']?)[^\s"',]{12,}/gi,
];

const KEY_PREFIX = /^(?:sk|rk|pk)-/;

/** Removes the given secrets and anything shaped like a credential from text bound for errors, traces, logs or GitHub. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    // Very short placeholders ("x", "none") would blank out ordinary words; real keys are long.
    if (secret && secret.length >= 8) out = out.split(secret).join("[redacted]");
  }
  for (const shape of CREDENTIAL_SHAPES) {
    out = out.replace(shape, (match: string, name?: string, sep?: string) => {
      if (typeof name === "string" && typeof sep === "string") return `${name}${sep}[redacted]`;
      return KEY_PREFIX.test(match) && !/\d/.test(match) ? match : "[redacted]";
    });
  }
  return out;
}
