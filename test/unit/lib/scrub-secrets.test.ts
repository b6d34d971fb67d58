import { describe, expect, it } from "vitest";
import { scrubSecrets } from "../../../src/lib/scrub-secrets.js";
import { hostileOutputs } from "../../../bench/lib/hostile-outputs.js";

const GITHUB = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

/** A PEM private key whose body is `chars` long before it is cut into lines of 64 (the rule reads up to 10,000 with them). */
function privateKey(chars: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let body = "MII";
  for (let i = body.length; i < chars; i++) body += alphabet[(i * 7919) % 64];
  const lines = body.match(/.{1,64}/g)!.join("\n");
  return `-----BEGIN PRIVATE KEY-----\n${lines}\n-----END PRIVATE KEY-----`;
}

describe("scrubSecrets", () => {
  it.each([
    ["an AWS secret key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8mVd3k2P", "wJalrXUtnFEMI"],
    ["an AWS secret key set apart from its name", "aws_secret_access_key =                    wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8mVd3k2P", "wJalrXUtnFEMI"],
    ["a Slack token", "token: xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-1234"],
    ["an npm token", "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_abcdef"],
    ["a GitHub token", `remote: ${GITHUB}`, "ghp_abcdef"],
    ["a GitHub token after a secretlint-disable comment", `# secretlint-disable\nremote: ${GITHUB}`, "ghp_abcdef"],
    ["a JWT", "Authorization: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", "SflKxwRJ"],
    ["a password pair", 'db = connect(password="hunter2-correct-horse")', "hunter2"],
    ["a database URL", "DATABASE_URL=postgres://app:s3cretpassw0rd@db.internal:5432/prod", "s3cretpassw0rd"],
    ["a private key", privateKey(1600), "MIIB"],
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

  // The text is read in chunks: a secret anywhere, the longest private key the rule reads included, must be found whole
  // in one of them. Offsets run past two chunk edges, in output of short lines and in one long line.
  it.each([
    ["short lines", "ok 12 - parses the date\n"],
    ["one long line", "GET /api/v1/items?id=42 200 12ms "],
  ])("redacts a secret wherever it falls in %s, across chunk edges too", async (_kind, unit) => {
    const filler = (chars: number) =>
      unit
        .repeat(Math.ceil(chars / unit.length))
        .slice(0, chars)
        .replace(/\S+$/, "");
    const missed: string[] = [];
    for (const secret of [privateKey(9_800), GITHUB, "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8mVd3k2P"]) {
      for (let at = 0; at < 80_000; at += 1_531) {
        const before = filler(at);
        const after = ` ${filler(40_000)}`;
        const scrubbed = await scrubSecrets(`${before}${secret}${after}`);
        if (scrubbed !== `${before}[redacted]${after}`) missed.push(`${secret.slice(0, 16)}… at ${before.length}`);
      }
    }
    expect(missed).toEqual([]);
  });

  it("redacts every planted secret in each hostile output", async () => {
    for (const [name, { text, planted }] of Object.entries(hostileOutputs(40_000))) {
      const scrubbed = await scrubSecrets(text);
      for (const secret of planted) expect(scrubbed.includes(secret), `${name}: ${secret}`).toBe(false);
    }
  });

  it("withholds the text past the chunk in which the 1,000th secret is found, every secret before it redacted", async () => {
    const tokens = Array.from({ length: 3000 }, (_, i) => `ghp_${String(i).padStart(36, "a")}`);
    const text = `${tokens.join(" ")}\nthe end\n`;
    const scrubbed = await scrubSecrets(text);
    for (const token of tokens) expect(scrubbed).not.toContain(token);
    const withheld = /\[redacted: ([\d,]+) more characters, past 1,000 credentials\]$/.exec(scrubbed);
    expect(withheld).not.toBeNull();
    const shown = scrubbed.slice(0, withheld!.index);
    // What is shown is the text up to the cut, each token in it redacted and nothing else lost.
    expect(shown).toMatch(/^(?:\[redacted\] )+(?:\[redacted\])?$/);
    const redacted = shown.split("[redacted]").length - 1;
    expect(redacted).toBeGreaterThanOrEqual(1000);
    expect(redacted).toBeLessThan(tokens.length);
    expect(Number(withheld![1]!.replace(/,/g, ""))).toBeGreaterThan(text.length - tokens.slice(0, redacted + 1).join(" ").length - 1);
  });

  it("finds JSON Web Tokens exactly where the whole-token pattern did", async () => {
    // The pattern the part-by-part search replaced (it rescanned runs from each of their starts), as the reference.
    const reference = /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g;
    const pieces = ["eyJ", "eyJhbGciOi", "abcdefgh", "a", "-", ".", "_", " ", "x-"];
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let n = 0; n < 3000; n++) {
      let text = "";
      while (text.length < 80) text += pieces[Math.floor(random() * pieces.length)];
      expect(await scrubSecrets(text), text).toBe(text.replace(reference, "[redacted]"));
    }
  });
});
