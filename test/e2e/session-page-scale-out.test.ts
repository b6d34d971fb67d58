import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildDist } from "../support/build-dist.js";
import { openBrowser, type TestBrowser } from "../support/browser.js";
import { INSTALLATION, startScaleRig, type ScaleRig } from "../support/scale-rig.js";
import { labeledPayload } from "./payloads.js";

const SCREENSHOTS = path.join(process.cwd(), "test-results", "screenshots");
/** Where the links point: the page is served by the web process, which the test reaches at its own address. */
const PUBLIC_URL = "https://magis.example.test";
/** The session pages on: the App's OAuth client and the public URL (both roles, so that the worker's links agree). */
const PAGES_ON = { GITHUB_CLIENT_ID: "Iv1.scaleclient", GITHUB_CLIENT_SECRET: "scale-client-secret-0123456789abcdef", MAGIS_PUBLIC_URL: PUBLIC_URL };

async function until<T>(what: string, look: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await look();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the session page at scale: a web process shows a job that a worker process runs (PostgreSQL)", () => {
  let rig: ScaleRig | undefined;
  let browser: TestBrowser | undefined;

  beforeAll(() => buildDist(), 180_000);

  afterEach(async () => {
    await browser?.close();
    browser = undefined;
    const processes = rig?.processes ?? [];
    await rig?.close();
    rig = undefined;
    for (const child of processes) expect(() => process.kill(-child.pid, 0), `process group ${child.pid} (${child.role}) is gone`).toThrow();
  });

  it("follows the worker's entries live in chromium, from the first stage to the outcome", async () => {
    // Each model answer takes a while, so that the page opens while the job runs.
    rig = await startScaleRig({ issues: 1, latencyMs: 400 });
    const scale = rig;
    // A public repository's sessions open to everyone: the page is read without signing in.
    const [web] = await Promise.all([scale.serve("web", { ...PAGES_ON, MAGIS_SESSIONS_PUBLIC: "1" }), scale.serve("worker", PAGES_ON)]);
    const { status } = await scale.deliver(
      web,
      "issues",
      labeledPayload({ sender: "Codertocat", installationId: INSTALLATION, issueNumber: 1 }),
      "scale-session-1",
    );
    expect(status).toBe(200);
    const job = await until("the worker to start the job", async () => {
      const { rows } = await scale.db.query("SELECT id, worker, status FROM jobs WHERE status = 'running'");
      return rows[0] as { id: number; worker: string } | undefined;
    });
    expect(job.worker).toBeTruthy();

    browser = await openBrowser();
    const page = await (await browser.browser.newContext()).newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${web.url}/jobs/${job.id}`);
    expect(await page.locator("script[src='/jobs/live.js']").count()).toBe(1);
    await page.evaluate(() => {
      const shown: { seq: number; at: number }[] = [];
      (window as unknown as { shown: typeof shown }).shown = shown;
      new MutationObserver((records) => {
        const at = performance.timeOrigin + performance.now();
        for (const record of records)
          for (const node of record.addedNodes) {
            if (!(node instanceof HTMLElement)) continue;
            for (const row of [node, ...node.querySelectorAll<HTMLElement>("[data-seq]")])
              if (row.dataset.seq) shown.push({ seq: Number(row.dataset.seq), at });
          }
      }).observe(document.body, { childList: true, subtree: true });
    });
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, "session-scale-out-running.png"), fullPage: true });
    // The web process runs no job: everything the page shows from here on came from the worker through the database.
    await page.waitForSelector(".outcome.succeeded", { timeout: 60_000 });
    await page.waitForSelector('tr[data-stage="publish"]');
    await page.screenshot({ path: path.join(SCREENSHOTS, "session-scale-out-finished.png"), fullPage: true });

    const shown = await page.evaluate(() => (window as unknown as { shown: { seq: number; at: number }[] }).shown);
    const { rows } = await scale.db.query("SELECT seq, at, kind FROM session_entries WHERE job_id = $1", [job.id]);
    const made = new Map(rows.map((row: { seq: number; at: string }) => [Number(row.seq), Number(row.at)]));
    const delays = shown.map((row) => row.at - made.get(row.seq)!).sort((a, b) => a - b);
    expect(delays.length).toBeGreaterThan(3);
    console.log(
      `session page live delay across processes (worker's entry made → row shown by the web process's page), ${delays.length} rows: median ${Math.round(delays[Math.floor(delays.length / 2)]!)} ms, max ${Math.round(delays.at(-1)!)} ms`,
    );
    // Every row-making entry the worker wrote (model calls, progress) is on the page once, without a reload.
    const onPage = await page.locator("[data-seq]").evaluateAll((nodes) => nodes.map((n) => Number((n as HTMLElement).dataset.seq)));
    const rowKinds = new Set(["model-call", "command", "progress", "note"]);
    const written = rows.filter((row: { kind: string }) => rowKinds.has(row.kind)).map((row: { seq: number }) => Number(row.seq));
    expect(written.length).toBeGreaterThan(10);
    expect([...onPage].sort((a, b) => a - b)).toEqual(written.sort((a: number, b: number) => a - b));
    // The status comment the worker wrote links the page under MAGIS_PUBLIC_URL.
    expect(scale.github.comments.some((c) => c.body.includes(`[Session](${PUBLIC_URL}/jobs/${job.id})`))).toBe(true);
    expect(errors).toEqual([]);
  }, 240_000);
});
