import dns from "node:dns/promises";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { coversAddress, isRequestHost, matchesPattern, normalHost, ownAddresses, parseHostPattern, specialAddress } from "./host-patterns.js";
import { PROXY_SOCKET, writeBridge } from "./proxy-bridge.js";
import type { HostTally, NetworkTally, SetupNetwork } from "./sandbox.js";
import { SANDBOX_UID } from "./sandbox-layout.js";

/** What a setup's proxy lets through. */
export interface SetupProxyOptions {
  /** The operator's MAGIS_SETUP_ALLOW_HOSTS (see parseHostPattern); empty refuses everything. */
  allow: readonly string[];
  /** The repository's `network:` list, which only narrows `allow`; null or absent: all that `allow` permits. */
  narrow?: readonly string[] | null;
  /** Whether this process runs as root: the socket is then given to SANDBOX_UID, the sandbox's user (default: as the uid says). */
  asRoot?: boolean;
  /** Resolves a host name to its addresses (default: the system's resolver); a test gives its own. */
  lookup?: (host: string) => Promise<string[]>;
  /** Connections held at once (default 64); more are closed at once. */
  maxConnections?: number;
  /** A connection silent this long is closed (default 120 s). */
  idleMs?: number;
}

/** A running proxy: the network to hand a setup's runs, what it saw, and its end. */
export interface SetupProxy {
  network: SetupNetwork;
  /** The hosts reached and refused so far, in the order first seen: the first TALLY_HOSTS of each, the rest counted alone. */
  tally(): NetworkTally;
  /** Stops listening, ends every connection and tunnel, and removes its folder. */
  close(): Promise<void>;
}

const MAX_HEADER_BYTES = 16 * 1024;

/** The longest path a Unix socket is bound to on Linux; a longer one is cut short, elsewhere, without an error. */
const MAX_SOCKET_PATH_BYTES = 107;

/** Hosts the tally names in each of its lists; requests for hosts past them are counted, not named. */
const TALLY_HOSTS = 50;

/** What a client may send after its CONNECT before the tunnel is open; more closes it. */
const MAX_EARLY_BYTES = 64 * 1024;

/** How the tally names a request whose host is neither a DNS name nor an IP address. */
const MALFORMED = "a malformed host";
const MALFORMED_WHY = "not a DNS name or an IP address";

/** What the proxy decided for one request: the address to connect to, or why not (and the status to answer). */
type Verdict = { ok: true; address: string } | { ok: false; status: number; why: string };

/**
 * Starts the forward proxy that is a setup's only way out: HTTP requests by absolute URL (`GET http://host/…`) are
 * forwarded, `CONNECT host:port` is tunnelled (HTTPS). Each target must match a pattern of `allow`, and of `narrow`
 * when given; the proxy resolves the name itself and connects to an address it checked, so a name cannot be rebound
 * to a loopback, link-local (cloud metadata), private, multicast or the bot's own address — which only an address
 * pattern of `allow` (`127.0.0.1:8080`, `10.0.0.0/8`) lets through. A refusal answers 403 with its reason on one line;
 * a host that is neither a DNS name nor an IP address, 400. The tally names the first 50 hosts of each kind and counts
 * the rest, so a setup that asks for thousands of names cannot swell the record or the pull request.
 * It listens on a Unix socket in a fresh folder of its own that only the sandbox's user (and root) may use; the
 * setup's runs reach it through the bridge in their network namespace (bwrapSandbox).
 */
export async function startSetupProxy(options: SetupProxyOptions): Promise<SetupProxy> {
  const allow = options.allow.map(parseHostPattern);
  const narrow = options.narrow ? options.narrow.map(parseHostPattern) : null;
  const lookup = options.lookup ?? resolveAll;
  const idleMs = options.idleMs ?? 120_000;
  const asRoot = options.asRoot ?? process.getuid?.() === 0;
  const own = ownAddresses();
  const reached = new Map<string, HostTally>();
  const refused = new Map<string, HostTally>();
  const held = new Set<net.Socket>();
  let otherReached = 0;
  let otherRefused = 0;
  let closed = false;

  const refuse = (host: string, why: string) => {
    const key = `${host}\0${why}`;
    const entry = refused.get(key) ?? (refused.size < TALLY_HOSTS ? { host, count: 0, bytes: 0, why } : null);
    if (!entry) return void otherRefused++;
    entry.count++;
    refused.set(key, entry);
  };
  const reach = (host: string) => {
    const entry = reached.get(host) ?? (reached.size < TALLY_HOSTS ? { host, count: 0, bytes: 0 } : null);
    if (!entry) {
      otherReached++;
      return () => undefined;
    }
    entry.count++;
    reached.set(host, entry);
    return (bytes: number) => (entry.bytes += bytes);
  };
  const hold = (socket: net.Socket) => {
    if (closed) return void socket.destroy();
    held.add(socket);
    socket.setTimeout(idleMs, () => socket.destroy());
    socket.once("close", () => held.delete(socket));
  };

  /** The checks in their order: the operator's list, the repository's, the name's addresses. */
  const decide = async (host: string, port: number): Promise<Verdict> => {
    if (!allow.some((pattern) => matchesPattern(pattern, host, port))) return { ok: false, status: 403, why: "not in MAGIS_SETUP_ALLOW_HOSTS" };
    if (narrow && !narrow.some((pattern) => matchesPattern(pattern, host, port)))
      return { ok: false, status: 403, why: "not in the repository's network list" };
    let addresses: string[];
    try {
      addresses = net.isIP(host) ? [host] : await lookup(host);
    } catch (error) {
      return { ok: false, status: 502, why: `its name did not resolve (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
    }
    let first: string | null = null;
    for (const address of addresses) {
      const special = specialAddress(address, own);
      const listed = allow.some((pattern) => pattern.kind === "address" && (pattern.port === null || pattern.port === port) && coversAddress(pattern, address));
      if (special === null || listed) return { ok: true, address };
      first ??= special;
    }
    return { ok: false, status: first ? 403 : 502, why: first ?? "its name has no address" };
  };

  /** Whether what asked is gone, or the proxy closed, while its host was being decided: then nothing is connected. */
  const gone = (client: net.Socket) => closed || client.destroyed;

  const prefix = path.join(os.tmpdir(), "magis-proxy-");
  const socketBytes = Buffer.byteLength(path.join(`${prefix}XXXXXX`, PROXY_SOCKET));
  if (socketBytes > MAX_SOCKET_PATH_BYTES)
    throw new Error(
      `the setup's proxy cannot listen under ${os.tmpdir()}: its socket's path would be ${socketBytes} bytes, past the ${MAX_SOCKET_PATH_BYTES} a Unix socket takes; set TMPDIR to a shorter folder`,
    );
  const folder = fs.mkdtempSync(prefix);
  const socketPath = path.join(folder, PROXY_SOCKET);
  const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES });
  server.maxConnections = options.maxConnections ?? 64;
  server.on("connection", hold);
  server.on("request", (request, response) => void forward(request, response));
  server.on("connect", (request, client: net.Socket, head: Buffer) => void tunnel(request, client, head));
  server.on("clientError", (_error, socket: net.Socket) => socket.destroy());

  async function forward(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const target = readAbsoluteUrl(request.url ?? "");
    if (!target) return answer(response, 400, "this is a forward proxy: ask for an absolute http:// URL, or CONNECT host:port for HTTPS");
    const host = normalHost(target.hostname);
    const port = Number(target.port || 80);
    if (!isRequestHost(host)) {
      refuse(MALFORMED, MALFORMED_WHY);
      return answer(response, 400, `the host is ${MALFORMED}: ask for a DNS name (letters, digits, hyphens) or an IP address`);
    }
    const name = tallyName(host, port);
    const verdict = await decide(host, port);
    if (gone(request.socket)) return void response.destroy();
    if (!verdict.ok) {
      refuse(name, verdict.why);
      return answer(response, verdict.status, `${name} refused: ${verdict.why}`);
    }
    const count = reach(name);
    const upstream = http.request({
      host: verdict.address,
      port,
      method: request.method,
      path: `${target.pathname}${target.search}`,
      headers: { ...endToEnd(request.headers), host: target.host },
      agent: false,
      setHost: false,
    });
    upstream.on("socket", (socket) => {
      hold(socket);
      socket.once("close", () => count(socket.bytesRead + socket.bytesWritten));
    });
    upstream.on("response", (reply) => {
      response.writeHead(reply.statusCode ?? 502, endToEnd(reply.headers));
      reply.pipe(response);
    });
    upstream.on("error", (error) => {
      if (response.headersSent) return response.destroy();
      answer(response, 502, `${name} could not be reached: ${(error as NodeJS.ErrnoException).code ?? error.message}`);
    });
    response.on("close", () => upstream.destroy());
    request.pipe(upstream);
  }

  async function tunnel(request: http.IncomingMessage, client: net.Socket, head: Buffer): Promise<void> {
    const target = readAuthority(request.url ?? "");
    if (!target) return answerRaw(client, 400, "CONNECT takes host:port");
    if (!isRequestHost(target.host)) {
      refuse(MALFORMED, MALFORMED_WHY);
      return answerRaw(client, 400, `the host is ${MALFORMED}: CONNECT to a DNS name (letters, digits, hyphens) or an IP address`);
    }
    const name = tallyName(target.host, target.port);
    // While the name resolves, what the client sends early is kept for the tunnel, and its leaving is seen.
    const early = [head];
    let earlyBytes = head.length;
    let left = false;
    const keep = (chunk: Buffer) => {
      early.push(chunk);
      earlyBytes += chunk.length;
      if (earlyBytes > MAX_EARLY_BYTES) client.destroy();
    };
    client.on("data", keep);
    client.once("end", () => (left = true));
    client.on("error", () => client.destroy());
    const verdict = await decide(target.host, target.port);
    client.off("data", keep);
    client.pause();
    if (left || gone(client)) return void client.destroy();
    if (!verdict.ok) {
      refuse(name, verdict.why);
      return answerRaw(client, verdict.status, `${name} refused: ${verdict.why}`);
    }
    const upstream = net.connect({ host: verdict.address, port: target.port });
    hold(upstream);
    let open = false;
    upstream.once("connect", () => {
      open = true;
      const count = reach(name);
      upstream.once("close", () => count(upstream.bytesRead + upstream.bytesWritten));
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      const sent = Buffer.concat(early);
      if (sent.length > 0) upstream.write(sent);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    upstream.on("error", (error) => {
      if (open) return client.destroy();
      answerRaw(client, 502, `${name} could not be reached: ${(error as NodeJS.ErrnoException).code ?? error.message}`);
    });
    client.on("error", () => upstream.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  }

  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => {
        server.off("error", reject);
        resolve();
      });
    });
    // The sandbox's user may connect and read the bridge; no one else may list or change the folder.
    writeBridge(folder);
    if (asRoot) {
      fs.chownSync(socketPath, SANDBOX_UID, SANDBOX_UID);
      fs.chmodSync(socketPath, 0o600);
      fs.chmodSync(folder, 0o711);
    } else {
      fs.chmodSync(socketPath, 0o600);
      fs.chmodSync(folder, 0o700);
    }
  } catch (error) {
    closed = true;
    if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    fs.rmSync(folder, { recursive: true, force: true });
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    network: { socket: socketPath },
    tally: () => ({
      reached: [...reached.values()].map((entry) => ({ ...entry })),
      refused: [...refused.values()].map((entry) => ({ ...entry })),
      ...(otherReached > 0 ? { otherReached } : {}),
      ...(otherRefused > 0 ? { otherRefused } : {}),
    }),
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        closed = true;
        server.close(() => resolve());
        for (const socket of held) socket.destroy();
      }).finally(() => fs.rmSync(folder, { recursive: true, force: true }))),
  };
}

/** The host's every address, IPv4 first. */
async function resolveAll(host: string): Promise<string[]> {
  const found = await dns.lookup(host, { all: true, order: "ipv4first" });
  return found.map((entry) => entry.address);
}

/** How a host appears in the tally: its name, with the port when it is not 80 or 443. */
function tallyName(host: string, port: number): string {
  const shown = net.isIPv6(host) ? `[${host}]` : host;
  return port === 80 || port === 443 ? shown : `${shown}:${port}`;
}

/** An `http://` request target, or null for anything else (a path alone, another scheme). */
function readAbsoluteUrl(target: string): URL | null {
  if (!/^http:\/\//i.test(target)) return null;
  try {
    return new URL(target);
  } catch {
    return null;
  }
}

/** A CONNECT target `host:port` (`[v6]:port`), or null. */
function readAuthority(target: string): { host: string; port: number } | null {
  const match = /^(\[[^\]]+\]|[^:[\]/]+):(\d{1,5})$/.exec(target);
  if (!match) return null;
  const port = Number(match[2]);
  return port >= 1 && port <= 65_535 ? { host: normalHost(match[1]!), port } : null;
}

/** Headers less the hop-by-hop ones (RFC 9110 §7.6.1), those the Connection header names too. */
function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const named = String(headers.connection ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase());
  const hop = new Set(["connection", "proxy-connection", "keep-alive", "proxy-authorization", "proxy-authenticate", "te", "trailer", "upgrade", ...named]);
  return Object.fromEntries(Object.entries(headers).filter(([name, value]) => value !== undefined && !hop.has(name.toLowerCase())));
}

function answer(response: http.ServerResponse, status: number, line: string): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
  response.end(`${line}\n`);
}

function answerRaw(socket: net.Socket, status: number, line: string): void {
  const body = `${line}\n`;
  const reason = status === 403 ? "Forbidden" : status === 400 ? "Bad Request" : "Bad Gateway";
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
