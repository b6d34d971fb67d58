import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { startProcessGroup, type ProcessGroup } from "./process-group.js";

/** Debian's chromium, the one browser the tests drive (DESIGN.md §12); .ci/run installs it. */
export const CHROMIUM = "/usr/bin/chromium";

/** The flags of DESIGN.md §12: headless, no sandbox of its own, no GPU, nothing fetched in the background. */
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** A running chromium driven through Playwright; `close` ends it and its whole process group, and removes its profile. */
export interface TestBrowser {
  browser: Browser;
  /** The chromium process's pid, which is its process group's id. */
  pid: number;
  close(): Promise<void>;
}

/**
 * Starts Debian's chromium in a process group of its own, with a fresh profile and the DevTools port on 127.0.0.1,
 * and connects Playwright to it. Call `close` in the test's teardown (afterAll/afterEach): it closes the connection and
 * kills the group whatever state the browser is in; a group left running when the test process exits is killed then.
 */
export async function openBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), as .ci/run does`);
  const profile = await mkdtemp(join(tmpdir(), "magis-chromium-"));
  const group = startProcessGroup(
    CHROMIUM,
    [
      ...FLAGS,
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      "--no-first-run",
      "--no-default-browser-check",
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    // Its temp folder too (the profile's lock, `org.chromium.Chromium.*`), which a browser stopped by a kill leaves behind.
    { cwd: profile, env: { ...process.env, HOME: profile, TMPDIR: profile } },
  );
  const end = async () => {
    await group.stop(2_000);
    await rm(profile, { recursive: true, force: true });
  };
  try {
    const endpoint = await devtoolsEndpoint(group, 30_000);
    const browser = await chromium.connectOverCDP(endpoint, { timeout: 30_000 });
    return {
      browser,
      pid: group.pid,
      async close() {
        await browser.close().catch(() => undefined);
        await end();
      },
    };
  } catch (error) {
    await end();
    throw error;
  }
}

/** The browser's DevTools WebSocket URL, from the line chromium prints once it listens. */
async function devtoolsEndpoint(group: ProcessGroup, withinMs: number): Promise<string> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const found = /DevTools listening on (ws:\/\/\S+)/.exec(group.output());
    if (found) return found[1]!;
    if (group.gone() || Date.now() > deadline) {
      throw new Error(`chromium did not open its DevTools port (${group.gone() ? "it exited" : `within ${withinMs} ms`}); its output:\n${group.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
