import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openBrowser, type TestBrowser } from "../support/browser.js";
import { startSessionWorld, type SessionWorld } from "./session-world.js";

const SCREENSHOTS = path.join(process.cwd(), "test-results", "screenshots");

let world: SessionWorld | undefined;
let browser: TestBrowser | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await world?.close();
  world = undefined;
});

async function until<T>(what: string, look: () => T | undefined | false | Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await look();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** When each entry was made, from the store (the recorder's clock, the same machine's as the browser's). */
function entryTimes(dbFile: string, jobId: number): Map<number, { at: number; kind: string }> {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare("SELECT seq, at, kind FROM session_entries WHERE job_id = ? ORDER BY seq").all(jobId) as {
      seq: number;
      at: number;
      kind: string;
    }[];
    return new Map(rows.map((row) => [row.seq, { at: row.at, kind: row.kind }]));
  } finally {
    db.close();
  }
}

function jobRecord(dbFile: string, jobId: number): { status: string; detail: string | null } {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT status, detail FROM jobs WHERE id = ?").get(jobId) as { status: string; detail: string | null };
  } finally {
    db.close();
  }
}

describe("the session page of a running job, in chromium", () => {
  it("signs the writer in, follows the job live as stages end, and stops it with the Stop button", async () => {
    world = await startSessionWorld({ gated: ["manager-define-task-and-way", "manager-close-meeting"], permissions: { writer: "write" } });
    const w = world;
    expect(await w.label("writer")).toBe(200);
    await w.gates["manager-define-task-and-way"]!.reached;
    // The status comment links the session page: that is how a maintainer finds it.
    const link = await until("the status comment's Session link", () => {
      for (const comment of w.github.comments) {
        const found = /\[Session\]\((http:\/\/127\.0\.0\.1:\d+\/jobs\/(\d+))\)/.exec(comment.body);
        if (found) return { url: found[1]!, jobId: Number(found[2]) };
      }
      return undefined;
    });
    expect(link.url.startsWith(w.url)).toBe(true);
    const dbFile = w.dbFile;

    browser = await openBrowser();
    const context = await browser.browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
    w.github.oauth.signIn("writer");
    // Signed out: to GitHub's sign-in, and back to the page, signed in.
    await page.goto(link.url);
    expect(page.url()).toBe(link.url);
    await page.waitForSelector('tr[data-stage="plan"]');
    expect(await page.locator('tr[data-stage="kickoff"]').count()).toBe(0);
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, "session-live-running.png"), fullPage: true });

    // Each row the live script adds, with when it appeared (the page's own clock).
    await page.evaluate(() => {
      const shown: { seq: number; at: number }[] = [];
      (window as unknown as { shown: typeof shown }).shown = shown;
      new MutationObserver((records) => {
        const at = performance.timeOrigin + performance.now();
        for (const record of records)
          for (const node of record.addedNodes) {
            if (!(node instanceof HTMLElement)) continue;
            for (const row of [node, ...node.querySelectorAll<HTMLElement>("[data-seq]")]) {
              if (row.dataset.seq) shown.push({ seq: Number(row.dataset.seq), at });
            }
          }
      }).observe(document.body, { childList: true, subtree: true });
    });

    // The stage ends; the page shows the next ones without a reload.
    w.gates["manager-define-task-and-way"]!.release();
    await w.gates["manager-close-meeting"]!.reached;
    await page.waitForSelector('tr[data-stage="kickoff"]', { timeout: 10_000 });
    await page.waitForFunction(() => document.querySelectorAll("#calls-manager li").length >= 3, undefined, { timeout: 10_000 });
    await page.screenshot({ path: path.join(SCREENSHOTS, "session-live-kickoff.png"), fullPage: true });

    const shown = await page.evaluate(() => (window as unknown as { shown: { seq: number; at: number }[] }).shown);
    const times = entryTimes(dbFile, link.jobId);
    const delays = shown.map((row) => row.at - times.get(row.seq)!.at).sort((a, b) => a - b);
    expect(delays.length).toBeGreaterThan(3);
    const median = delays[Math.floor(delays.length / 2)]!;
    console.log(
      `session page live delay (entry made by the job → row shown in chromium), ${delays.length} rows: median ${Math.round(median)} ms, max ${Math.round(delays.at(-1)!)} ms`,
    );

    // Stop: the writer's button cancels the job, the page shows it, and so do the record and the status comment.
    await page.getByRole("button", { name: "Stop the job" }).click();
    await page.waitForURL(link.url);
    await page.waitForSelector(".outcome.cancelled", { timeout: 15_000 });
    await page.screenshot({ path: path.join(SCREENSHOTS, "session-live-stopped.png"), fullPage: true });
    const record = await until("the job's record to say cancelled", () => {
      const now = jobRecord(dbFile, link.jobId);
      return now.status === "cancelled" && now;
    });
    expect(record.detail).toContain("@writer stopped it on its session page");
    await until("the status comment to say who stopped the run", () =>
      // The status comment names the login without pinging it (neutralized mention).
      w.github.comments.some((c) => c.body.includes("MAGIS stopped this run") && /@(&#8203;)?writer stopped it on its session page/.test(c.body)),
    );
    expect(errors).toEqual([]);
  }, 120_000);

  it("shows Go only to who may trigger, and the approver's guidance reaches the Developer", async () => {
    world = await startSessionWorld({
      gated: [],
      permissions: { boss: "admin", writer: "write" },
      config: "plan_approval: true\nallowed_permissions: [admin]\n",
    });
    const w = world;
    expect(await w.label("boss")).toBe(200);
    const jobId = await until("the job to wait for its plan's approval", () => {
      if (!fs.existsSync(w.dbFile)) return undefined;
      const db = new Database(w.dbFile, { readonly: true, fileMustExist: true });
      try {
        const row = db.prepare("SELECT job_id FROM session_entries WHERE kind = 'plan-wait'").get() as { job_id: number } | undefined;
        return row?.job_id;
      } finally {
        db.close();
      }
    });
    const url = `${w.url}/jobs/${jobId}`;
    browser = await openBrowser();

    // A writer may stop the job but not approve its plan: the repository lets admins alone trigger.
    w.github.oauth.signIn("writer");
    const writer = await (await browser.browser.newContext()).newPage();
    await writer.goto(url);
    await writer.waitForSelector(".waiting");
    expect(await writer.getByRole("button", { name: "Stop the job" }).count()).toBe(1);
    expect(await writer.getByRole("button", { name: "Go" }).count()).toBe(0);

    w.github.oauth.signIn("boss");
    const boss = await (await browser.browser.newContext()).newPage();
    await boss.goto(url);
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await boss.screenshot({ path: path.join(SCREENSHOTS, "session-live-plan-waiting.png"), fullPage: true });
    await boss.getByLabel("Guidance (optional)").fill("Keep the first sentence exactly as it is");
    await boss.getByRole("button", { name: "Go" }).click();
    await boss.waitForURL(url);
    await boss.waitForSelector(".outcome.succeeded", { timeout: 60_000 });
    expect(await boss.locator("#session-steering").innerText()).toContain("Approved by @boss from the page");
    const developerAsked = w.model.requests.filter((r) => r.agent === "developer" && r.prompt !== "developer-speak");
    expect(developerAsked.some((r) => r.messages.some((m) => m.content.includes("Keep the first sentence exactly as it is")))).toBe(true);
  }, 120_000);
});
