import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { renderSessionPage, SESSION_PAGE_STYLE_HASH, type SessionPageOptions } from "../../../src/session/render-session-page.js";
import { SESSION_LIVE_SCRIPT, sessionEventMessage } from "../../../src/session/session-live-script.js";
import type { StoredSessionEntry } from "../../../src/session/types.js";
import { openBrowser, type TestBrowser } from "../../support/browser.js";
import { syntheticSession } from "../../support/session-entries.js";

const SCREENSHOTS = join(process.cwd(), "test-results", "screenshots");
/** The policy the web role serves the page with (src/server/session/page-headers.ts), rebuilt here from its parts. */
const POLICY = `default-src 'none'; script-src 'self'; style-src ${SESSION_PAGE_STYLE_HASH}; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

/** A page server on 127.0.0.1: the page at /jobs/1, the live script, and an event stream the test writes to. */
interface PageServer {
  url: string;
  /** The requests for the stream so far, with the Last-Event-ID each sent. */
  streams: { lastEventId: string | undefined; after: string | null }[];
  /** Writes to the open stream (waits until one is open). */
  send(text: string): Promise<void>;
  /** Ends the open stream from the server's side, as a restarting server would. */
  drop(): void;
  close(): Promise<void>;
}

async function servePage(html: () => string): Promise<PageServer> {
  let open: ServerResponse | null = null;
  const streams: PageServer["streams"] = [];
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/jobs/1") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": POLICY }).end(html());
    } else if (url.pathname === "/live.js") {
      response.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(SESSION_LIVE_SCRIPT);
    } else if (url.pathname === "/jobs/1/events") {
      streams.push({ lastEventId: request.headers["last-event-id"] as string | undefined, after: url.searchParams.get("after") });
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
      // A short retry, so that a dropped stream is opened again within the test's time.
      response.write("retry: 200\n\n");
      open = response;
    } else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/jobs/1`,
    streams,
    async send(text) {
      const deadline = Date.now() + 10_000;
      while (!open || open.writableEnded) {
        if (Date.now() > deadline) throw new Error("the page opened no event stream within 10 s");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      open.write(text);
    },
    drop() {
      open?.end();
      open = null;
    },
    async close() {
      open?.end();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** How long the synthetic session's locate stage took, as the page writes it (one second per entry). */
function locateTook(session: readonly StoredSessionEntry[]): string {
  const at = (state: string) => session.find((entry) => entry.kind === "stage" && entry.data.name === "locate" && entry.data.state === state)!.at;
  return `${((at("ended") - at("started")) / 1000).toFixed(1)} s`;
}

/** What ran or complained while a page was open: dialogs (dismissed), uncaught errors, console errors and warnings. */
function watch(page: Page): { dialogs: string[]; errors: string[]; console: string[] } {
  const seen = { dialogs: [] as string[], errors: [] as string[], console: [] as string[] };
  page.on("dialog", (dialog) => {
    seen.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => seen.errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") seen.console.push(message.text());
  });
  return seen;
}

let chrome: TestBrowser;
let context: BrowserContext;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  chrome = await openBrowser();
  await mkdir(SCREENSHOTS, { recursive: true });
}, 60_000);
afterAll(async () => {
  await chrome?.close();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function newPage(): Promise<Page> {
  context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
  cleanups.push(() => context.close());
  return context.newPage();
}

describe("the session page in chromium", () => {
  it("shows a finished job's timeline, a conversation opened, a diff and the costs, styled under the served policy", async () => {
    const session = syntheticSession({ modelCalls: 12, commands: 4 });
    const server = await servePage(() => renderSessionPage(session));
    cleanups.push(() => server.close());
    const page = await newPage();
    const seen = watch(page);
    await page.goto(server.url);

    expect(await page.locator("#session-timeline tr[data-stage]").count()).toBe(4);
    expect(await page.locator('#session-timeline tr[data-stage="locate"] td').nth(2).textContent()).toBe(locateTook(session));

    const call = page.locator("#calls-developer > li").first();
    const message = call.locator("details.call h4").first();
    expect(await message.isVisible()).toBe(false);
    await call.locator("summary").first().click();
    expect(await message.isVisible()).toBe(true);
    expect(await call.locator("details.call > pre").first().textContent()).toContain('"reason": "The parser assumes a token."');

    const added = page.locator("#session-result pre.diff span.add");
    expect(await added.count()).toBe(1);
    expect(await added.textContent()).toBe("+    return tokens[0] if tokens else None");
    // The style applied: its hash is what the policy allows (a blocked style leaves the lines inline).
    expect(await added.evaluate((node) => getComputedStyle(node).display)).toBe("block");

    const totals = await page.locator("#session-totals").innerText();
    expect(totals).toMatch(/All\s+12\s/);
    expect(totals).toContain("$0.0240");

    await page.screenshot({ path: join(SCREENSHOTS, "session-finished.png"), fullPage: true });
    expect(seen).toEqual({ dialogs: [], errors: [], console: [] });
  }, 60_000);

  it("runs nothing hostile entries hold and stays bounded, opened from disk as the CLI writes it", async () => {
    const hostile =
      '<script>window.injected = 1; alert("script")</script></details></pre></code><img src=x onerror="alert(\'img\')">' +
      "<a href=\"javascript:alert('link')\">click</a><svg onload=\"alert('svg')\"></svg>\u0000\u001b[2J\u202egnp.exe\u0007";
    const line = `+${"y".repeat(99)}`;
    const huge = `diff --git a/big b/big\n--- a/big\n+++ b/big\n@@ -0,0 +1,52000 @@\n${Array.from({ length: 52_000 }, () => line).join("\n")}\n`;
    const session = syntheticSession({ title: hostile, answer: hostile, output: hostile, patch: huge, url: "javascript:alert('issue')" });
    const html = renderSessionPage(session);
    expect(huge.length).toBeGreaterThan(5_000_000);
    expect(Buffer.byteLength(html)).toBeLessThan(2_000_000);

    const folder = await mkdtemp(join(tmpdir(), "magis-session-page-"));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    const file = join(folder, "session.html");
    await writeFile(file, html);
    const page = await newPage();
    const seen = watch(page);
    await page.goto(pathToFileURL(file).href);
    // Open every <details>, so that whatever hides in a collapsed message or output is laid out too.
    await page.evaluate(() => document.querySelectorAll("details").forEach((details) => (details.open = true)));
    await page.waitForTimeout(300);

    const facts = await page.evaluate(() => ({
      injected: (window as unknown as { injected?: number }).injected,
      scripts: document.scripts.length,
      images: document.images.length,
      svgs: document.querySelectorAll("svg").length,
      handlers: [...document.querySelectorAll("*")].flatMap((node) =>
        [...node.attributes].filter((attribute) => attribute.name.startsWith("on")).map((attribute) => attribute.name),
      ),
      links: [...document.querySelectorAll("a")].map((link) => link.protocol),
      title: document.querySelector("h1")?.textContent ?? "",
    }));
    expect(facts).toMatchObject({ injected: undefined, scripts: 0, images: 0, svgs: 0, handlers: [] });
    expect(new Set(facts.links)).toEqual(new Set(["https:"]));
    // The title is shown as the words it is, its control characters as code points.
    expect(facts.title).toContain('<script>window.injected = 1; alert("script")</script></details>');
    expect(facts.title).toContain("U+0000U+001B[2JU+202Egnp.exeU+0007");
    expect(await page.locator(".cut", { hasText: "The diff has 52,004 lines" }).count()).toBe(3);
    await page.screenshot({ path: join(SCREENSHOTS, "session-hostile.png") });
    expect(seen.dialogs).toEqual([]);
    expect(seen.errors).toEqual([]);
  }, 60_000);

  it("follows a running job live: rows appended, parts replaced, a dropped stream resumed from Last-Event-ID, stopped at the end", async () => {
    const session = syntheticSession({ modelCalls: 4, commands: 1 });
    const firstCall = session.findIndex((entry) => entry.kind === "model-call");
    const shown = session.slice(0, firstCall);
    const live: SessionPageOptions = { live: { eventsUrl: "/jobs/1/events", scriptUrl: "/live.js" } };
    const server = await servePage(() => renderSessionPage(shown, live));
    cleanups.push(() => server.close());
    const page = await newPage();
    const seen = watch(page);
    await page.goto(server.url);
    const sent: StoredSessionEntry[] = [...shown];
    const send = async (entry: StoredSessionEntry) => {
      sent.push(entry);
      await server.send(sessionEventMessage(entry, sent, live));
    };

    await send(session[firstCall]!);
    await page.locator("#calls-custodian > li").first().waitFor();
    expect(await page.locator("#session-totals").innerText()).toMatch(/custodian\s+1\s/);
    expect(server.streams[0]).toEqual({ lastEventId: undefined, after: String(shown.at(-1)!.seq) });

    // An entry the page has shown already (a repeat after a reconnect) is not shown twice.
    await server.send(sessionEventMessage(session[firstCall]!, sent, live));
    const locateEnd = session.findIndex((entry) => entry.kind === "stage" && entry.data.state === "ended");
    for (const entry of session.slice(firstCall + 1, locateEnd + 1)) await send(entry);
    await page.locator('#session-timeline tr[data-stage="locate"] td', { hasText: locateTook(session) }).waitFor();
    expect(await page.locator("#calls-custodian > li").count()).toBe(1);
    await page.screenshot({ path: join(SCREENSHOTS, "session-running.png"), fullPage: true });

    server.drop();
    await expect.poll(() => server.streams.length, { timeout: 10_000 }).toBe(2);
    expect(server.streams[1]!.lastEventId).toBe(String(session[locateEnd]!.seq));
    for (const entry of session.slice(locateEnd + 1)) await send(entry);
    await page.locator("#session-header .outcome.succeeded").waitFor();
    expect(await page.locator("#session-live").textContent()).toBe("ended");
    expect(await page.locator("#session-result pre.diff span.add").count()).toBe(1);
    expect(await page.locator("#calls-qa > li").count()).toBe(1);

    // Ended: the script closed its stream and asks for no other.
    server.drop();
    await page.waitForTimeout(1000);
    expect(server.streams).toHaveLength(2);
    expect(seen).toEqual({ dialogs: [], errors: [], console: [] });
  }, 60_000);
});
