import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openBrowser, type TestBrowser } from "../../support/browser.js";
import { closeRigs, rig } from "./sign-in-rig.js";

let chromium: TestBrowser;
beforeAll(async () => {
  chromium = await openBrowser();
}, 60_000);
afterAll(async () => chromium?.close());
afterEach(closeRigs);

describe("signing in, in a real browser", () => {
  it("sends a signed-out visitor to sign in at GitHub and brings them back to the session signed in, with a cookie script cannot read", async () => {
    const { base, github } = await rig({ private: true, permissions: { alice: "read" } });
    github.oauth.signIn("alice");
    const context = await chromium.browser.newContext();
    try {
      const page = await context.newPage();
      const seen: string[] = [];
      page.on("request", (request) => {
        if (request.isNavigationRequest()) seen.push(new URL(request.url()).pathname);
      });
      const answer = await page.goto(`${base}/jobs/1`);
      expect(page.url()).toBe(`${base}/jobs/1`);
      expect(answer?.status()).toBe(200);
      expect(seen).toEqual(["/jobs/1", "/auth/github/login", "/login/oauth/authorize", "/auth/github/callback", "/jobs/1"]);
      expect(JSON.parse((await page.textContent("body"))!)).toEqual({ viewer: { login: "alice", id: github.oauth.idOf("alice") }, level: "read" });
      const cookies = await context.cookies(base);
      expect(cookies.map(({ name, httpOnly, sameSite, path }) => ({ name, httpOnly, sameSite, path }))).toEqual([
        { name: "magis_session", httpOnly: true, sameSite: "Lax", path: "/" },
      ]);
      expect(await page.evaluate(() => document.cookie)).toBe("");
      // Signed in, the next visit goes straight to the page.
      seen.length = 0;
      await page.goto(`${base}/jobs/1`);
      expect(seen).toEqual(["/jobs/1"]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
