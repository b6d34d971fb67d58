import dgram from "node:dgram";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { processesWith } from "../../../src/sandbox/escape-probes.js";
import { bwrapSandbox, checkBwrap, DEFAULT_LIMITS, runEscapeProbes, type Sandbox, type SetupProxy, startSetupProxy } from "../../../src/sandbox/index.js";
import { SANDBOX_UID } from "../../../src/sandbox/sandbox-layout.js";
import { bubblewrapForTests } from "../../support/bubblewrap-for-tests.js";

// A setup run through the real bubblewrap with the real proxy: its network namespace holds loopback and the bridge
// alone, so what the operator lists is reached through the proxy and nothing of the host's is reached any other way.
let sandbox: Sandbox;
let host: string;
let copy: string;
let proxy: SetupProxy;
let web: http.Server;
let webPort: number;
let tcp: net.Server;
let tcpPort: number;
let tcpHits = 0;
let webHits = 0;

beforeAll(async () => {
  sandbox = bubblewrapForTests();
  web = http.createServer((request, response) => {
    webHits++;
    response.end(`package index for ${request.url}\n`);
  });
  tcp = net.createServer((socket) => {
    tcpHits++;
    socket.end("hello\n");
  });
  await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
  await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
  webPort = (web.address() as net.AddressInfo).port;
  tcpPort = (tcp.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => web.close(resolve));
  await new Promise((resolve) => tcp.close(resolve));
});
beforeEach(async () => {
  host = fs.mkdtempSync(path.join(os.tmpdir(), "magis-setup-network-"));
  copy = path.join(host, "copy");
  fs.mkdirSync(copy);
  sandbox.prepare(copy);
  proxy = await startSetupProxy({ allow: [`127.0.0.1:${webPort}`] });
});
afterEach(async () => {
  await proxy.close();
  fs.rmSync(host, { recursive: true, force: true });
});

const setup = (command: string, extra: { env?: Record<string, string>; home?: string } = {}) =>
  sandbox.run(command, { dir: copy, env: extra.env ?? {}, timeoutMs: 30_000, network: proxy.network, ...(extra.home ? { home: extra.home } : {}) });

describe("a setup given the network reaches what the operator lists through the proxy", () => {
  it("curl and python's urllib fetch a listed host through HTTP_PROXY; an unlisted one is refused and named", async () => {
    const listed = `http://127.0.0.1:${webPort}/simple/`;
    const result = await setup(
      [
        `curl -sS ${listed}`,
        `/usr/bin/python3 -c 'import urllib.request; print(urllib.request.urlopen("${listed}python/").read().decode().strip())'`,
        `curl -sS -o /dev/null -w "unlisted %{http_code}\\n" http://127.0.0.1:${tcpPort}/`,
      ].join(" && "),
    );
    expect(result.output).toContain("package index for /simple/");
    expect(result.output).toContain("package index for /simple/python/");
    expect(result.output).toContain("unlisted 403");
    expect(result.outcome).toBe("passed");
    expect(webHits).toBeGreaterThanOrEqual(2);
    expect(tcpHits).toBe(0);
    const tally = proxy.tally();
    expect(tally.reached).toMatchObject([{ host: `127.0.0.1:${webPort}`, count: 2 }]);
    expect(tally.refused).toEqual([{ host: `127.0.0.1:${tcpPort}`, count: 1, bytes: 0, why: "not in MAGIS_SETUP_ALLOW_HOSTS" }]);
  });

  it("sees the proxy's variables, and a NODE_OPTIONS of the repository's reaches its command, not the bridge", async () => {
    const result = await setup(
      `echo "$HTTPS_PROXY $npm_config_https_proxy $YARN_HTTPS_PROXY [$NO_PROXY] $NODE_OPTIONS"; node -e 'console.log(typeof globalThis.marked)'`,
      {
        env: { NODE_OPTIONS: "--require=/workspace/marks.cjs" },
      },
    );
    expect(result.output).toContain("http://127.0.0.1:3128 http://127.0.0.1:3128 http://127.0.0.1:3128 [] --require=/workspace/marks.cjs");
    // The command's node took the option (and failed on the missing file); the bridge before it did not.
    expect(result.output).toContain("Cannot find module '/workspace/marks.cjs'");
  });

  it("ends when its command ends, with its exit status, leaving no bridge or daemon behind", async () => {
    const marker = `${process.pid}.${Date.now() % 100_000}`;
    const result = await setup(`setsid sleep ${marker} >/dev/null 2>&1 < /dev/null & exit 3`);
    expect(result.outcome).toBe("failed");
    expect(result.exitCode).toBe(3);
    expect(result.durationMs).toBeLessThan(2_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(processesWith(marker)).toEqual([]);
    expect(processesWith(path.dirname(proxy.network.socket))).toEqual([]);
  });

  it("has HOME at the caller's folder, read-write, whose files stay on the host", async () => {
    const home = path.join(host, "home");
    fs.mkdirSync(home);
    sandbox.prepare(home);
    const result = await setup('echo "$HOME"; mkdir -p ~/.cache/pip && echo kept > ~/.cache/pip/wheel', { home });
    expect(result.output.trim()).toBe("/tmp/home");
    expect(fs.readFileSync(path.join(home, ".cache", "pip", "wheel"), "utf8")).toBe("kept\n");
    if (process.getuid?.() === 0) expect(fs.statSync(path.join(home, ".cache")).uid).toBe(SANDBOX_UID);
  });
});

describe("a setup given the network reaches nothing of the host's but the proxy", () => {
  it("raw TCP to the host's 127.0.0.1 and its other address, UDP, DNS and an abstract socket all fail", async () => {
    const own = Object.values(os.networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .find((entry) => entry.family === "IPv4" && !entry.internal)?.address;
    const outside = own ? net.createServer((socket) => socket.destroy()) : null;
    let outsideHits = 0;
    outside?.on("connection", () => outsideHits++);
    if (outside && own) await new Promise<void>((resolve) => outside.listen(0, own, resolve));
    const udp = dgram.createSocket("udp4");
    let datagrams = 0;
    udp.on("message", () => datagrams++);
    await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
    const name = `magis-setup-abstract-${process.pid}`;
    let abstract = 0;
    const unix = net.createServer((socket) => {
      abstract++;
      socket.end();
    });
    await new Promise<void>((resolve) => unix.listen(`\0${name}`, resolve));
    try {
      const tries = [
        `["tcp 127.0.0.1", ${tcpPort}, "127.0.0.1"]`,
        ...(own && outside ? [`["tcp ${own}", ${(outside.address() as net.AddressInfo).port}, "${own}"]`] : []),
        `["abstract", "\\0${name}"]`,
      ];
      const probe = `
        const net = require("node:net");
        for (const [what, ...address] of [${tries.join(", ")}])
          net.connect(...address).on("connect", function () { console.log("reached " + what); this.end(); }).on("error", (e) => console.log("failed " + what + " " + e.code));
        const udp = require("node:dgram").createSocket("udp4");
        udp.send("x", ${(udp.address() as net.AddressInfo).port}, "127.0.0.1", (e) => { console.log(e ? "udp failed " + e.code : "udp sent"); udp.close(); });
        require("node:dns").lookup("registry.npmjs.org", (e) => console.log(e ? "dns failed " + e.code : "dns resolved"));
        require("node:dns").resolve4("registry.npmjs.org", (e) => console.log(e ? "resolve failed " + e.code : "resolve answered"));
      `;
      const result = await setup(`node -e '${probe}'; sleep 0.3`);
      expect(result.output).not.toContain("reached");
      expect(result.output).toContain(`failed tcp 127.0.0.1 ECONNREFUSED`);
      if (own) expect(result.output).toMatch(new RegExp(`failed tcp ${own.replace(/\./g, "\\.")} E(NETUNREACH|CONNREFUSED|HOSTUNREACH)`));
      expect(result.output).toContain("failed abstract ECONNREFUSED");
      expect(result.output).toMatch(/dns failed E[A-Z]+/);
      expect(result.output).toMatch(/resolve failed E[A-Z]+/);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect({ tcpHits, outsideHits, datagrams, abstract }).toEqual({ tcpHits: 0, outsideHits: 0, datagrams: 0, abstract: 0 });
      // Nothing of the attempts went through the proxy either.
      expect(proxy.tally()).toEqual({ reached: [], refused: [] });
    } finally {
      await new Promise((resolve) => unix.close(resolve));
      udp.close();
      if (outside) await new Promise((resolve) => outside.close(resolve));
    }
  });
});

describe("magis sandbox check, where the operator gives setups the network", () => {
  it("probes a setup's way around the proxy, TCP, UDP, DNS and an abstract socket, and finds each contained", async () => {
    const checked = checkBwrap({ limits: DEFAULT_LIMITS, setupNetwork: true, searchPath: process.env.PATH ?? "" });
    if (!checked.ok) throw new Error(`these tests need a working bubblewrap: ${checked.why}`);
    const { results } = await runEscapeProbes(bwrapSandbox({ program: checked.program, limits: DEFAULT_LIMITS, setupNetwork: true }));
    const setups = results.filter((result) => result.tried.startsWith("a setup given the network"));
    expect(setups.map((result) => `${result.tried}: ${result.verdict}`)).toEqual([
      "a setup given the network: connect to the host's 127.0.0.1 around the proxy: contained",
      "a setup given the network: send UDP to the host's 127.0.0.1 around the proxy: contained",
      "a setup given the network: resolve a name (DNS) around the proxy: contained",
      "a setup given the network: connect to the host's abstract unix socket around the proxy: contained",
    ]);
    expect(results.filter((result) => result.verdict !== "contained")).toEqual([]);
  });
});
