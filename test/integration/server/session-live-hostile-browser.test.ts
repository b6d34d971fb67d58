import type { BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { StoredSessionEntry } from "../../../src/session/types.js";
import { openBrowser, type TestBrowser } from "../../support/browser.js";
import { syntheticSession } from "../../support/session-entries.js";
import { startSessionPagesRig, type SessionPagesRig } from "./session-pages-rig.js";

const HOSTILE =
  '<script>window.injected = 1; alert("script")</script></details></pre></code><img src=x onerror="alert(\'img\')">' +
  "<a href=\"javascript:alert('link')\">click</a><svg onload=\"alert('svg')\"></svg>\u0000\u001b[2J\u202egnp.exe\u0007\u2028";

let chrome: TestBrowser | undefined;
let rig: SessionPagesRig | undefined;
let context: BrowserContext | undefined;

beforeAll(async () => {
  chrome = await openBrowser();
}, 60_000);
afterAll(async () => {
  await chrome?.close();
});
afterEach(async () => {
  await context?.close();
  context = undefined;
  await rig?.stop();
  rig = undefined;
});

/** An entry as the recorder appends it: kind and data (the store numbers and times it). */
const asAppended = ({ kind, data }: StoredSessionEntry) => ({ kind, data }) as Parameters<SessionPagesRig["record"]>[1][number];

describe("hostile entries through the live stream", () => {
  it("streams a hostile session through the served events route into chromium under the served policy: nothing runs", async () => {
    rig = await startSessionPagesRig();
    const job = await rig.addJob();
    const session = syntheticSession({ title: HOSTILE, answer: HOSTILE, output: HOSTILE, url: "javascript:alert('issue')", modelCalls: 6, commands: 2 });
    const firstCall = session.findIndex((entry) => entry.kind === "model-call");
    // The page opens before any hostile row: every one of them comes through the stream.
    await rig.record(
      job.id,
      session
        .slice(0, firstCall)
        .filter((entry) => entry.kind !== "job")
        .map(asAppended),
    );
    const cookie = (await rig.signIn("reader")).split("=");
    context = await chrome!.browser.newContext();
    await context.addCookies([{ name: cookie[0]!, value: cookie.slice(1).join("="), url: rig.url }]);
    const page: Page = await context.newPage();
    const seen = { dialogs: [] as string[], errors: [] as string[] };
    page.on("dialog", (dialog) => {
      seen.dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on("pageerror", (error) => seen.errors.push(error.message));
    const answer = await page.goto(`${rig.url}/jobs/${job.id}`);
    // The policy the browser holds the page to is the one the server sends.
    expect(answer!.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.locator("#session-live", { hasText: "live" }).waitFor();

    // The job entry too (its hostile title and link re-render the header), then the hostile calls, commands and the end.
    await rig.record(job.id, [...session.filter((entry) => entry.kind === "job"), ...session.slice(firstCall)].map(asAppended));
    await page.locator("#session-header .outcome.succeeded").waitFor({ timeout: 20_000 });
    expect(await page.locator("#session-live").textContent()).toBe("ended");
    await page.evaluate(() => document.querySelectorAll("details").forEach((details) => (details.open = true)));
    await page.waitForTimeout(300);

    const facts = await page.evaluate(() => ({
      injected: (window as unknown as { injected?: number }).injected,
      scripts: [...document.scripts].map((script) => script.getAttribute("src")),
      images: document.images.length,
      svgs: document.querySelectorAll("svg").length,
      handlers: [...document.querySelectorAll("*")].flatMap((node) =>
        [...node.attributes].filter((attribute) => attribute.name.startsWith("on")).map((attribute) => attribute.name),
      ),
      links: [...document.querySelectorAll("a")].map((link) => link.protocol),
      calls: document.querySelectorAll("#calls-developer > li").length,
      title: document.querySelector("h1")?.textContent ?? "",
      command: document.querySelector("#session-commands")?.textContent ?? "",
    }));
    expect(facts).toMatchObject({ injected: undefined, scripts: ["/jobs/live.js"], images: 0, svgs: 0, handlers: [] });
    expect(facts.links.every((protocol) => protocol === "https:")).toBe(true);
    expect(facts.calls).toBeGreaterThan(0);
    // The hostile text arrived, shown as the words it is.
    expect(await page.locator("#session").innerText()).toContain('<script>window.injected = 1; alert("script")</script>');
    expect(facts.command).toContain("U+0000");
    expect(facts.title).toContain("U+0000U+001B[2JU+202Egnp.exeU+0007");
    expect(seen).toEqual({ dialogs: [], errors: [] });
  }, 90_000);
});
