import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type SetupProxy, startSetupProxy } from "../../../src/sandbox/index.js";
import { SANDBOX_UID } from "../../../src/sandbox/sandbox-layout.js";

// The setup's proxy, spoken to directly on its Unix socket: what it forwards, tunnels and refuses, and what it counts.
// Every server is on 127.0.0.1; names resolve through a table of the test's, so nothing leaves the machine.
let web: http.Server;
let echo: net.Server;
let webPort: number;
let echoPort: number;
const proxies: SetupProxy[] = [];

beforeAll(async () => {
  web = http.createServer((request, response) => response.end(`hello from ${request.headers.host} ${request.url}`));
  echo = net.createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  webPort = (web.address() as net.AddressInfo).port;
  echoPort = (echo.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => web.close(resolve));
  await new Promise((resolve) => echo.close(resolve));
});
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

const NAMES: Record<string, string[]> = {
  "metadata.example.test": ["169.254.169.254"],
  "intranet.example.test": ["10.1.2.3"],
  "rebound.example.test": ["127.0.0.1"],
};

async function start(allow: string[], narrow?: string[]): Promise<SetupProxy> {
  const proxy = await startSetupProxy({
    allow,
    narrow,
    lookup: async (host) => {
      const found = NAMES[host];
      if (!found) throw Object.assign(new Error(`no such name ${host}`), { code: "ENOTFOUND" });
      return found;
    },
  });
  proxies.push(proxy);
  return proxy;
}

/** A plain HTTP request through the proxy, by absolute URL, written by hand (the test's network guard knows no proxies). */
function get(proxy: SetupProxy, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(proxy.network.socket);
    const chunks: Buffer[] = [];
    socket.on("error", reject);
    socket.on("connect", () => socket.write(`GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\nConnection: close\r\n\r\n`));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const end = text.indexOf("\r\n\r\n");
      const head = text.slice(0, end);
      let body = text.slice(end + 4);
      if (/^transfer-encoding: chunked$/im.test(head)) body = unchunk(body);
      resolve({ status: Number(head.split(" ")[1]), body });
    });
  });
}

/** A chunked body's content. */
function unchunk(body: string): string {
  let out = "";
  let rest = body;
  for (;;) {
    const line = rest.indexOf("\r\n");
    const size = parseInt(rest.slice(0, line), 16);
    if (!size) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

/** CONNECT through the proxy: the status line, and the socket when it was let through. */
function connect(proxy: SetupProxy, authority: string): Promise<{ status: number; body: string; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(proxy.network.socket);
    let seen = "";
    socket.on("error", reject);
    socket.on("connect", () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("latin1");
      const end = seen.indexOf("\r\n\r\n");
      if (end < 0) return;
      const status = Number(seen.split(" ")[1]);
      if (status === 200) {
        socket.off("data", onData);
        return resolve({ status, body: seen.slice(end + 4), socket });
      }
      socket.on("end", () => resolve({ status, body: seen.slice(end + 4), socket }));
    };
    socket.on("data", onData);
  });
}

describe("the setup's proxy", () => {
  it("forwards a request for a host the operator lists, and counts it with its bytes", async () => {
    const proxy = await start([`127.0.0.1:${webPort}`]);
    const reply = await get(proxy, `http://127.0.0.1:${webPort}/simple/pkg/`);
    expect(reply).toEqual({ status: 200, body: `hello from 127.0.0.1:${webPort} /simple/pkg/` });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { reached, refused } = proxy.tally();
    expect(refused).toEqual([]);
    expect(reached).toHaveLength(1);
    expect(reached[0]).toMatchObject({ host: `127.0.0.1:${webPort}`, count: 1 });
    expect(reached[0]!.bytes).toBeGreaterThan(100);
  });

  it("refuses a host the operator does not list with 403 and its reason, and names it in the tally", async () => {
    const proxy = await start(["registry.npmjs.org"]);
    const reply = await get(proxy, `http://127.0.0.1:${webPort}/`);
    expect(reply.status).toBe(403);
    expect(reply.body).toBe(`127.0.0.1:${webPort} refused: not in MAGIS_SETUP_ALLOW_HOSTS\n`);
    expect(proxy.tally()).toEqual({ reached: [], refused: [{ host: `127.0.0.1:${webPort}`, count: 1, bytes: 0, why: "not in MAGIS_SETUP_ALLOW_HOSTS" }] });
  });

  it("refuses a listed name whose address is loopback, link-local (cloud metadata) or private, never connecting", async () => {
    const proxy = await start(["*.example.test"]);
    const replies = await Promise.all(["rebound", "metadata", "intranet"].map((name) => get(proxy, `http://${name}.example.test/latest/`)));
    expect(replies.map((reply) => reply.status)).toEqual([403, 403, 403]);
    expect(proxy.tally().refused.map(({ host, why }) => `${host}: ${why}`)).toEqual([
      "rebound.example.test: a loopback address (127.0.0.1)",
      "metadata.example.test: a link-local address (169.254.169.254)",
      "intranet.example.test: a private address (10.1.2.3)",
    ]);
    expect(proxy.tally().reached).toEqual([]);
  });

  it("refuses loopback even on a listed port unless an address pattern covers it", async () => {
    const byName = await start([`rebound.example.test:${webPort}`]);
    expect((await get(byName, `http://rebound.example.test:${webPort}/`)).body).toContain("a loopback address (127.0.0.1)");
    const byRange = await start([`rebound.example.test:${webPort}`, `127.0.0.0/8:${webPort}`]);
    expect(await get(byRange, `http://rebound.example.test:${webPort}/x`)).toEqual({ status: 200, body: `hello from rebound.example.test:${webPort} /x` });
  });

  it("lets the repository's network list narrow what the operator allows, never widen it", async () => {
    const proxy = await start([`127.0.0.1:${webPort}`], ["registry.npmjs.org"]);
    const narrowed = await get(proxy, `http://127.0.0.1:${webPort}/`);
    expect(narrowed.body).toBe(`127.0.0.1:${webPort} refused: not in the repository's network list\n`);
    const widened = await start(["registry.npmjs.org"], [`127.0.0.1:${webPort}`]);
    expect((await get(widened, `http://127.0.0.1:${webPort}/`)).body).toContain("not in MAGIS_SETUP_ALLOW_HOSTS");
  });

  it("tunnels CONNECT to a listed host byte for byte, refuses an unlisted one, and names what does not resolve", async () => {
    const proxy = await start([`127.0.0.1:${echoPort}`, "*.example.test:443"]);
    const open = await connect(proxy, `127.0.0.1:${echoPort}`);
    expect(open.status).toBe(200);
    const back = new Promise<string>((resolve) => open.socket.once("data", (chunk) => resolve(chunk.toString())));
    open.socket.write("ping through the tunnel");
    expect(await back).toBe("ping through the tunnel");
    open.socket.destroy();
    const closed = await connect(proxy, `127.0.0.1:${webPort}`);
    expect(closed.status).toBe(403);
    expect(closed.body).toBe(`127.0.0.1:${webPort} refused: not in MAGIS_SETUP_ALLOW_HOSTS\n`);
    const unknown = await connect(proxy, "nowhere.example.test:443");
    expect(unknown.status).toBe(502);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const tally = proxy.tally();
    expect(tally.reached).toEqual([{ host: `127.0.0.1:${echoPort}`, count: 1, bytes: 46 }]);
    expect(tally.refused.map(({ host, why }) => `${host}: ${why}`)).toEqual([
      `127.0.0.1:${webPort}: not in MAGIS_SETUP_ALLOW_HOSTS`,
      "nowhere.example.test: its name did not resolve (ENOTFOUND)",
    ]);
  });

  it("listens in a folder of its own that the sandbox's user may use, and close ends every tunnel and removes it", async () => {
    const proxy = await start([`127.0.0.1:${echoPort}`]);
    const folder = path.dirname(proxy.network.socket);
    const socket = fs.statSync(proxy.network.socket);
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    if (process.getuid?.() === 0) expect(socket.uid).toBe(SANDBOX_UID);
    expect(fs.statSync(folder).mode & 0o077 & ~0o011).toBe(0);
    expect(fs.existsSync(path.join(folder, "bridge.cjs"))).toBe(true);
    const open = await connect(proxy, `127.0.0.1:${echoPort}`);
    const ended = new Promise((resolve) => open.socket.once("close", resolve));
    await proxy.close();
    await ended;
    expect(fs.existsSync(folder)).toBe(false);
  });

  it("refuses a wrong pattern at its start, quoting it", async () => {
    await expect(startSetupProxy({ allow: ["registry.*.org"] })).rejects.toThrow(
      /'registry\.\*\.org' is not a host pattern \(a \* only as a whole first label/,
    );
    await expect(startSetupProxy({ allow: ["example.com:99999"] })).rejects.toThrow(/port '99999' is not 1–65535/);
  });
});
