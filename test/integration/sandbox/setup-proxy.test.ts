import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
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

/** The test's resolver: NAMES, and every hN.loop.test at 127.0.0.1. */
async function lookupName(host: string): Promise<string[]> {
  const found = NAMES[host] ?? (/^h\d+\.loop\.test$/.test(host) ? ["127.0.0.1"] : undefined);
  if (!found) throw Object.assign(new Error(`no such name ${host}`), { code: "ENOTFOUND" });
  return found;
}

async function start(allow: string[], narrow?: string[], lookup = lookupName): Promise<SetupProxy> {
  const proxy = await startSetupProxy({ allow, narrow, lookup });
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

  it("names the first 50 hosts reached and refused and counts the rest, so thousands of names cannot swell the tally", async () => {
    const proxy = await start([`*.loop.test:${webPort}`, `127.0.0.0/8:${webPort}`]);
    for (let i = 0; i < 53; i++) expect((await get(proxy, `http://h${i}.loop.test:${webPort}/`)).status).toBe(200);
    for (let i = 0; i < 55; i++) expect((await connect(proxy, `h${i}.elsewhere.test:443`)).status).toBe(403);
    expect((await get(proxy, `http://h0.loop.test:${webPort}/again`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const tally = proxy.tally();
    expect(tally.reached).toHaveLength(50);
    expect(tally.reached[0]).toMatchObject({ host: `h0.loop.test:${webPort}`, count: 2 });
    expect(tally.reached[49]!.host).toBe(`h49.loop.test:${webPort}`);
    expect(tally.refused).toHaveLength(50);
    expect(tally.refused[49]).toEqual({ host: "h49.elsewhere.test", count: 1, bytes: 0, why: "not in MAGIS_SETUP_ALLOW_HOSTS" });
    expect(tally.otherReached).toBe(3);
    expect(tally.otherRefused).toBe(5);
  });

  it("answers 400 for a host that is neither a DNS name nor an IP address, tallied under one entry", async () => {
    const proxy = await start(["*.example.test"]);
    const tunnelled = await connect(proxy, "bad_name.example.test:443");
    expect(tunnelled.status).toBe(400);
    expect(tunnelled.body).toBe("the host is a malformed host: CONNECT to a DNS name (letters, digits, hyphens) or an IP address\n");
    const forwarded = await get(proxy, "http://another_bad.example.test/");
    expect(forwarded.status).toBe(400);
    expect((await connect(proxy, "a..b.example.test:443")).status).toBe(400);
    expect(proxy.tally()).toEqual({ reached: [], refused: [{ host: "a malformed host", count: 3, bytes: 0, why: "not a DNS name or an IP address" }] });
  });

  it("connects nowhere when the client left, or the proxy closed, while its name was being resolved", async () => {
    const upstream = await countingServer();
    try {
      const pending: ((addresses: string[]) => void)[] = [];
      const slow = (host: string) => (host === "slow.example.test" ? new Promise<string[]>((resolve) => pending.push(resolve)) : lookupName(host));
      const proxy = await start([`slow.example.test:${upstream.port}`, `127.0.0.0/8:${upstream.port}`], undefined, slow);
      for (const ask of [`CONNECT slow.example.test:${upstream.port}`, `GET http://slow.example.test:${upstream.port}/`]) {
        const client = net.connect(proxy.network.socket);
        await new Promise((resolve) => client.once("connect", resolve));
        client.write(`${ask} HTTP/1.1\r\nHost: slow.example.test:${upstream.port}\r\n\r\n`);
        await until(() => pending.length > 0);
        client.destroy();
        await new Promise((resolve) => setTimeout(resolve, 50));
        pending.shift()!(["127.0.0.1"]);
      }
      const client = net.connect(proxy.network.socket);
      client.on("error", () => undefined);
      await new Promise((resolve) => client.once("connect", resolve));
      client.write(`CONNECT slow.example.test:${upstream.port} HTTP/1.1\r\nHost: slow.example.test\r\n\r\n`);
      await until(() => pending.length > 0);
      await proxy.close();
      pending.shift()!(["127.0.0.1"]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(upstream.connections()).toBe(0);
      expect(proxy.tally().reached).toEqual([]);
    } finally {
      await upstream.close();
    }
  });

  it("checks its socket's path fits before it makes its folder, and leaves nothing behind", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "magis-proxy-test-"));
    const deep = path.join(tmp, "d".repeat(200 - tmp.length));
    fs.mkdirSync(deep);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = deep;
    try {
      await expect(startSetupProxy({ allow: [] })).rejects.toThrow(
        /its socket's path would be \d+ bytes, past the 107 a Unix socket takes; set TMPDIR to a shorter folder/,
      );
      expect(fs.readdirSync(deep)).toEqual([]);
      expect(fs.readdirSync(tmp)).toEqual([path.basename(deep)]);
    } finally {
      restoreTmpdir(saved);
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("stops listening and removes its folder when giving the socket to the sandbox's user fails", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mp-"));
    fs.chmodSync(tmp, 0o777);
    const saved = process.env.TMPDIR;
    const pipes = () => process.getActiveResourcesInfo().filter((name) => name === "PipeWrap" || name === "PipeServerWrap").length;
    const before = pipes();
    process.env.TMPDIR = tmp;
    // As root, the chown fails once the effective user is another; as any other user it fails anyway.
    const root = process.getuid?.() === 0;
    if (root) process.seteuid!(SANDBOX_UID + 1);
    try {
      await expect(startSetupProxy({ allow: [], asRoot: true })).rejects.toThrow(/EPERM/);
    } finally {
      if (root) process.seteuid!(0);
      restoreTmpdir(saved);
    }
    try {
      expect(fs.readdirSync(tmp)).toEqual([]);
      // A closed server's handle leaves the list a moment after its close; a listening one never does.
      await until(() => pipes() === before).catch(() => undefined);
      expect(pipes()).toBe(before);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("refuses a wrong pattern at its start, quoting it", async () => {
    await expect(startSetupProxy({ allow: ["registry.*.org"] })).rejects.toThrow(
      /'registry\.\*\.org' is not a host pattern \(a \* only as a whole first label/,
    );
    await expect(startSetupProxy({ allow: ["example.com:99999"] })).rejects.toThrow(/port '99999' is not 1–65535/);
  });
});

/** Puts TMPDIR back as it was, absent if it was. */
function restoreTmpdir(saved: string | undefined): void {
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
}

/** Waits for `ready`, checking every 10 ms (a second at most). */
async function until(ready: () => boolean): Promise<void> {
  for (let waited = 0; !ready(); waited += 10) {
    if (waited > 1000) throw new Error("waited a second in vain");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A TCP server on 127.0.0.1 that counts the connections it is given and holds them until closed. */
async function countingServer(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    sockets.add(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => count,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
