import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createSessionAccess } from "../../../src/app/session-access.js";
import { sessionPagesFrom } from "../../../src/app/session-pages-from.js";
import { readSettings } from "../../../src/app/settings/read-settings.js";
import { createOctokitClass } from "../../../src/github/client/create-octokit-class.js";
import type { Octokit } from "../../../src/github/types.js";
import { createSessionAuth } from "../../../src/server/session-auth.js";
import { createBareRepository } from "../../support/git-server.js";
import { serveFakeGitHub, type FakeGitHubOptions } from "../../support/github-api.js";

const TOKEN = "ghs_sessionSignInToken0123456789abcd";
export const CLIENT = { id: "Iv23liSessionPages01", secret: "0f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6" };
const JOB = { installationId: 1, owner: "octo", repo: "demo" };

let cleanups: (() => Promise<void> | void)[] = [];

/** Stops every server the rigs started and removes their folders: call it in afterEach. */
export async function closeRigs(): Promise<void> {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
}

/**
 * The web role's sign-in as the wiring makes it (sessionPagesFrom over the settings, GHE_HOST naming the fake GitHub),
 * in front of GET /jobs/1, which answers the viewer's access to the job (JSON) or sends a signed-out visitor to sign in.
 */
export async function rig(fake: Partial<FakeGitHubOptions>, env: Record<string, string> = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-sign-in-"));
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
  createBareRepository(root, "octo/demo", { "README.md": "Hello\n" });
  let answer: http.RequestListener = () => {};
  const server = http.createServer((request, response) => answer(request, response));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const github = await serveFakeGitHub({
    owner: "octo",
    repo: "demo",
    installationId: 1,
    token: TOKEN,
    gitRoot: root,
    cloneUrl: "http://127.0.0.1:9/octo/demo.git",
    issue: { number: 5, title: "Typo", body: "" },
    oauth: { clientId: CLIENT.id, clientSecret: CLIENT.secret, callbackUrls: [`${base}/auth/github/callback`] },
    ...fake,
  });
  cleanups.push(() => github.close());
  const settings = readSettings(
    {
      GITHUB_CLIENT_ID: CLIENT.id,
      GITHUB_CLIENT_SECRET: CLIENT.secret,
      MAGIS_PUBLIC_URL: base,
      GHE_HOST: github.url.slice("http://".length),
      GHE_PROTOCOL: "http",
      ...env,
    },
    { door: "serve" },
  );
  const pages = sessionPagesFrom(settings);
  if ("off" in pages) throw new Error(pages.off);
  const auth = createSessionAuth(pages.auth);
  const Octokit = createOctokitClass({ timeoutMs: 5_000 });
  const installation = async () => new Octokit({ auth: { token: TOKEN }, baseUrl: `${github.url}/api/v3`, retry: { enabled: false } }) as unknown as Octokit;
  const access = createSessionAccess({ auth: installation, sessionsPublic: pages.sessionsPublic });
  answer = (request, response) => {
    if (auth.handle(request, response)) return;
    const viewer = auth.viewer(request);
    void access(viewer, JOB).then((level) => {
      if (level === "none" && !viewer) return void response.writeHead(303, { location: auth.signInUrl(request.url!) }).end();
      response.writeHead(level === "none" ? 404 : 200, { "content-type": "application/json" }).end(JSON.stringify({ viewer, level }));
    });
  };
  return { base, github };
}

/** A browser's way through redirects, keeping cookies per host: each address it went through, and the last answer. */
export async function browse(start: string, jar = new Map<string, string>()) {
  const went: string[] = [];
  let url = start;
  for (let hop = 0; hop < 10; hop++) {
    went.push(url);
    const host = new URL(url).host;
    const cookie = [...jar].filter(([key]) => key.startsWith(`${host} `)).map(([key, value]) => `${key.split(" ")[1]}=${value}`);
    const response = await fetch(url, { redirect: "manual", headers: cookie.length > 0 ? { cookie: cookie.join("; ") } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split("; ");
      const [name, value] = pair!.split("=") as [string, string];
      if (attributes.includes("Max-Age=0")) jar.delete(`${host} ${name}`);
      else jar.set(`${host} ${name}`, value);
    }
    const location = response.headers.get("location");
    if (response.status < 300 || response.status >= 400 || !location) return { went, response, text: await response.text(), jar };
    url = new URL(location, url).toString();
  }
  throw new Error(`more than 10 redirects from ${start}`);
}
