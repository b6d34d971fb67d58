import { describe, expect, it } from "vitest";
import { scrubSecrets } from "../../../src/lib/scrub-secrets.js";

describe("scrubSecrets", () => {
  it.each([
    ["an AWS secret key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8mVd3k2P", "wJalrXUtnFEMI"],
    ["a Slack token", "token: xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-1234"],
    ["an npm token", "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_abcdef"],
    ["a GitHub token", "remote: ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdef"],
    ["a JWT", "Authorization: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", "SflKxwRJ"],
    ["a password pair", 'db = connect(password="hunter2-correct-horse")', "hunter2"],
    ["a database URL", "DATABASE_URL=postgres://app:s3cretpassw0rd@db.internal:5432/prod", "s3cretpassw0rd"],
  ])("removes %s", async (_kind, text, secret) => {
    const scrubbed = await scrubSecrets(`before\n${text}\nafter`);
    expect(scrubbed).not.toContain(secret);
    expect(scrubbed).toContain("[redacted]");
    expect(scrubbed.startsWith("before\n")).toBe(true);
    expect(scrubbed.endsWith("\nafter")).toBe(true);
  });

  it("keeps ordinary test output as it is", async () => {
    const output = [
      "FAILED tests/test_auth.py::test_password_reset - AssertionError: assert 401 == 200",
      "E   KeyError: 'password'",
      "tests/test_tokens.py:12: in test_expiry",
      "  expected: token expired after 3600 seconds",
      "1 failed, 41 passed in 2.31s",
    ].join("\n");
    expect(await scrubSecrets(output)).toBe(output);
  });
});
