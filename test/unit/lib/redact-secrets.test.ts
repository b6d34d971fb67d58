import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../../src/lib/redact-secrets.js";

describe("redactSecrets", () => {
  it("removes the given secret wherever it appears", () => {
    expect(redactSecrets("key abcdefgh12345678 was refused: abcdefgh12345678", ["abcdefgh12345678"])).toBe("key [redacted] was refused: [redacted]");
  });

  it("removes credential shapes it was not told about", () => {
    const text =
      'Incorrect API key provided: sk-proj-AbCdEf0123456789xyz. Authorization: Bearer eyJhbGciOi.abcdef12 api_key="hunter2hunter2" ghs_0123456789abcdefghijABCD';
    const clean = redactSecrets(text);
    expect(clean).not.toMatch(/AbCdEf|eyJhbGciOi|hunter2|ghs_0123/);
    expect(clean).toContain('api_key="[redacted]');
  });

  it("removes credentials written into a URL, keeping the host", () => {
    expect(redactSecrets("could not reach https://magis:hunter2pass@llm.internal/v1 (1 try)")).toBe(
      "could not reach https://[redacted]@llm.internal/v1 (1 try)",
    );
  });

  it("leaves short placeholders and ordinary words alone", () => {
    expect(redactSecrets("max_tokens=4096 prompt_tokens: 12; no key", ["none"])).toBe("max_tokens=4096 prompt_tokens: 12; no key");
  });

  it("removes a GitHub token given or shaped, and a token in a git remote URL", () => {
    const token = "v1.abcdef0123456789";
    expect(redactSecrets(`fatal: ${token} rejected`, [token])).toBe("fatal: [redacted] rejected");
    expect(redactSecrets("auth ghs_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345 failed", [])).toBe("auth [redacted] failed");
    expect(redactSecrets("unable to access 'https://x-access-token:abc@github.com/o/r'", [])).toBe("unable to access 'https://[redacted]@github.com/o/r'");
    expect(redactSecrets("nothing here", [undefined, ""])).toBe("nothing here");
  });

  it("leaves messages and names that only look like the start of a credential", () => {
    const text = "Bearer token missing; Unexpected token = in JSON at packages/pk-utilities-and-more/index.js";
    expect(redactSecrets(text)).toBe(text);
  });
});
