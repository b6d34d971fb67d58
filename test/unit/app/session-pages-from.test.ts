import { describe, expect, it } from "vitest";
import { sessionPagesFrom } from "../../../src/app/session-pages-from.js";
import { readSettings } from "../../../src/app/settings/read-settings.js";

const ON = { GITHUB_CLIENT_ID: "Iv23liClient", GITHUB_CLIENT_SECRET: "a-client-secret", MAGIS_PUBLIC_URL: "https://magis.example.com/" };
const pagesOf = (env: Record<string, string>) => sessionPagesFrom(readSettings(env, { door: "serve" }));

describe("sessionPagesFrom", () => {
  it("is off without the OAuth client or the public URL, naming each one missing", () => {
    expect(pagesOf({})).toEqual({
      off: 'the session pages are off: set GITHUB_CLIENT_ID (the App\'s OAuth client ID), GITHUB_CLIENT_SECRET (its client secret), MAGIS_PUBLIC_URL (where people reach the web role) to turn them on (docs/deploy.md, "The session pages")',
    });
    expect(pagesOf({ ...ON, MAGIS_PUBLIC_URL: "" })).toEqual({
      off: expect.stringMatching(/set MAGIS_PUBLIC_URL \(where people reach the web role\) to turn them on/),
    });
    expect(pagesOf({ ...ON, GITHUB_CLIENT_SECRET: "" })).toEqual({ off: expect.stringMatching(/set GITHUB_CLIENT_SECRET \(its client secret\) to/) });
  });

  it("is on with all three: the public URL without its slash, github.com, a key every process derives alike", () => {
    const pages = pagesOf(ON);
    if ("off" in pages) throw new Error(pages.off);
    expect(pages.publicUrl).toBe("https://magis.example.com");
    expect(pages.sessionsPublic).toBe(false);
    expect(pages.auth).toMatchObject({ publicUrl: "https://magis.example.com", clientId: "Iv23liClient", webUrl: "https://github.com" });
    const again = pagesOf(ON) as typeof pages;
    expect(pages.auth.secret).toBe(again.auth.secret);
    expect(pages.auth.secret).not.toContain("a-client-secret");
    const other = pagesOf({ ...ON, GITHUB_CLIENT_SECRET: "another-secret" }) as typeof pages;
    expect(other.auth.secret).not.toBe(pages.auth.secret);
  });

  it("takes MAGIS_SESSION_SECRET, a GitHub Enterprise Server's web side, and MAGIS_SESSIONS_PUBLIC=1", () => {
    const secret = "s".repeat(32);
    const pages = pagesOf({ ...ON, MAGIS_SESSION_SECRET: secret, GHE_HOST: "ghe.example.com", MAGIS_SESSIONS_PUBLIC: "1" });
    if ("off" in pages) throw new Error(pages.off);
    expect(pages.auth.secret).toBe(secret);
    expect(pages.auth.webUrl).toBe("https://ghe.example.com");
    expect(pages.sessionsPublic).toBe(true);
    expect((pagesOf({ ...ON, MAGIS_SESSIONS_PUBLIC: "true" }) as typeof pages).sessionsPublic).toBe(false);
  });
});

describe("the session settings", () => {
  it("refuse a public URL that is no http(s) address, or holds a query, and say what to set", () => {
    expect(() => readSettings({ MAGIS_PUBLIC_URL: "magis.example.com" }, { door: "serve" })).toThrow(
      "MAGIS_PUBLIC_URL is 'magis.example.com', which is not an address: set it to where people reach the web role, such as https://magis.example.com",
    );
    expect(() => readSettings({ MAGIS_PUBLIC_URL: "ftp://magis.example.com" }, { door: "serve" })).toThrow(/not an http or https address/);
    expect(() => readSettings({ MAGIS_PUBLIC_URL: "https://magis.example.com/?x=1" }, { door: "serve" })).toThrow(/more than a scheme, a host and a port/);
    // The pages' links are root-relative (/jobs/…, /auth/github/callback): an address under a path would break each one.
    expect(() => readSettings({ MAGIS_PUBLIC_URL: "https://example.com/magis/" }, { door: "serve" })).toThrow(
      "which has a path (/magis/); the web role serves its pages at the root of its address, so serve it on a host of its own: set it to where people reach the web role, such as https://magis.example.com",
    );
    expect(readSettings({ MAGIS_PUBLIC_URL: "https://example.com:8443/" }, { door: "serve" }).server.publicUrl).toBe("https://example.com:8443");
  });

  it("refuse a signing key shorter than 32 characters, without showing it", () => {
    let message = "";
    try {
      readSettings({ MAGIS_SESSION_SECRET: "short-key" }, { door: "serve" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^MAGIS_SESSION_SECRET holds 9 characters, fewer than the 32 a signing key needs: set it to a longer random text/);
    expect(message).not.toContain("short-key");
  });
});
