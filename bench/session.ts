// The session page of a large job: a synthetic finished job of 200 model calls (each prompt carrying 6,000 characters
// of code, as a located file does) and 50 commands, recorded through the SessionRecorder into an SQLite store (bounded
// and redacted as a job's is), read back, and rendered. Prints the store's size for the job, the page's size, the time
// to render it on the server, and the time from navigation to first contentful paint in Debian's chromium (the page
// served on 127.0.0.1 under the web role's policy).
//
//   npm run bench:session [-- --calls 200] [--commands 50] [--prompt-chars 6000] [--runs 5]
import { mkdtemp, rm, stat } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openSqliteStore } from "../src/backends/sqlite/sqlite-store.js";
import { SessionRecorder } from "../src/session/record-session.js";
import { renderSessionPage, SESSION_PAGE_STYLE_HASH } from "../src/session/render-session-page.js";
import type { StoredSessionEntry } from "../src/session/types.js";
import { openBrowser } from "../test/support/browser.js";
import { syntheticSession } from "../test/support/session-entries.js";
import { printTable } from "./lib/print-table.js";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "200" },
    commands: { type: "string", default: "50" },
    "prompt-chars": { type: "string", default: "6000" },
    runs: { type: "string", default: "5" },
  },
});
const count = (name: keyof typeof values, least: number) => {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < least) {
    console.error(`--${name}: expected a whole number, at least ${least} (got ${String(values[name])})`);
    process.exit(2);
  }
  return value;
};
const calls = count("calls", 4);
const commands = count("commands", 1);
const promptChars = count("prompt-chars", 0);
const runs = count("runs", 1);

const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

const root = await mkdtemp(path.join(tmpdir(), "magis-bench-session-"));
try {
  // 1. Record the job into a fresh SQLite store, as a job's recorder does (batched appends, bounds, redaction).
  const file = path.join(root, "magis.db");
  const store = openSqliteStore(file);
  await store.migrate();
  const before = (await stat(file)).size;
  const jobId = 1;
  const recorder = new SessionRecorder({ sink: (rows) => store.sessions.append(jobId, rows), secrets: [], now: Date.now });
  const session = syntheticSession({ modelCalls: calls, commands, promptChars });
  for (const entry of session) recorder.record(entry);
  await recorder.close();
  const rows = await store.sessions.read(jobId);
  const storedChars = await store.sessions.bytes(jobId);
  await store.close();
  const after = (await stat(file)).size;
  const entries = rows.map((row) => ({ kind: row.kind, data: JSON.parse(row.data), seq: row.seq, at: row.at }) as StoredSessionEntry);

  // 2. Render on the server.
  const renderMs: number[] = [];
  let page = "";
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    page = renderSessionPage(entries);
    renderMs.push(performance.now() - started);
  }

  // 3. First contentful paint in chromium, the page served with the web role's policy.
  const policy = `default-src 'none'; script-src 'self'; style-src ${SESSION_PAGE_STYLE_HASH}; connect-src 'self'; form-action 'self'; base-uri 'none'`;
  const server = createServer((_request, response) =>
    response.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": policy }).end(page),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jobs/1`;
  const chrome = await openBrowser();
  const paintMs: number[] = [];
  const loadMs: number[] = [];
  try {
    for (let run = 0; run < runs; run += 1) {
      const context = await chrome.browser.newContext();
      const tab = await context.newPage();
      await tab.goto(url, { waitUntil: "load" });
      const timing = await tab.evaluate(() => ({
        paint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN,
        load: (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).loadEventEnd,
      }));
      paintMs.push(timing.paint);
      loadMs.push(timing.load);
      await context.close();
    }
  } finally {
    await chrome.close();
    server.closeAllConnections();
    server.close();
  }

  console.log(
    `A job of ${calls} model calls (prompts of ${promptChars.toLocaleString("en")} characters of code) and ${commands} commands: ${entries.length} entries.`,
  );
  printTable([
    ["what", "figure"],
    ["store: characters of JSON for the job", storedChars.toLocaleString("en")],
    ["store: SQLite file growth", kb(after - before)],
    ["page: size", kb(Buffer.byteLength(page))],
    [`render on the server (median of ${runs})`, `${median(renderMs).toFixed(0)} ms`],
    [`chromium: navigation to first contentful paint (median of ${runs})`, `${median(paintMs).toFixed(0)} ms`],
    [`chromium: navigation to load end (median of ${runs})`, `${median(loadMs).toFixed(0)} ms`],
  ]);
} finally {
  await rm(root, { recursive: true, force: true });
}
