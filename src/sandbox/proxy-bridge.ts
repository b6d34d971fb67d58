import fs from "node:fs";
import path from "node:path";

/** Where a setup run sees the proxy's folder (read-only): its socket and the bridge script. */
export const PROXY_MOUNT = "/run/magis-proxy";

/** The socket's and the bridge's names in the proxy's folder. */
export const PROXY_SOCKET = "proxy.sock";
export const BRIDGE_SCRIPT = "bridge.cjs";

/** The port inside a setup's network namespace where the bridge listens: nothing else of the host's is there. */
export const BRIDGE_PORT = 3128;

/**
 * The bridge, run by this process's node as the first process of a setup run: it listens on 127.0.0.1:<port> of the
 * run's own network namespace, hands every connection to the proxy's Unix socket, and then starts the command, whose
 * exit status it exits with. It is the command's parent, so the run ends when the command does and nothing of it
 * outlives the run: it is in the sandbox's PID namespace. Written as a file at the proxy's start, since the Action
 * runs a bundle and has no src/ to read it from.
 */
const BRIDGE_SOURCE = String.raw`"use strict";
const net = require("node:net");
const os = require("node:os");
const { spawn } = require("node:child_process");
const args = process.argv.slice(2);
const [port, socket] = args;
const end = args.indexOf("--");
const env = { ...process.env };
for (const arg of args.slice(2, end)) {
  const restore = /^--restore=([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/.exec(arg);
  if (restore) env[restore[1]] = restore[2];
}
const command = args.slice(end + 1);
const server = net.createServer((client) => {
  const upstream = net.connect(socket);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  for (const side of [client, upstream]) side.on("error", close).on("close", close);
  client.pipe(upstream);
  upstream.pipe(client);
});
server.on("error", (error) => {
  process.stderr.write("magis: the setup's network bridge could not listen on 127.0.0.1:" + port + ": " + error.message + "\n");
  process.exit(125);
});
server.listen(Number(port), "127.0.0.1", () => {
  const child = spawn(command[0], command.slice(1), { stdio: "inherit", env });
  child.on("error", (error) => {
    process.stderr.write("magis: the setup's command did not start: " + error.message + "\n");
    process.exit(127);
  });
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)));
});
`;

/** Writes the bridge into the proxy's folder, readable by every user (the sandbox's is `nobody`). */
export function writeBridge(folder: string): void {
  const file = path.join(folder, BRIDGE_SCRIPT);
  fs.writeFileSync(file, BRIDGE_SOURCE, { mode: 0o644 });
  fs.chmodSync(file, 0o644);
}

/**
 * The program a setup run starts in place of `command`: the bridge, by `node` (this process's), then the command. A
 * NODE_OPTIONS of the repository's is kept from the bridge's own node and given back to the command.
 */
export function bridgedCommand(node: string, command: readonly string[], env: Readonly<Record<string, string>>): string[] {
  const options = env.NODE_OPTIONS;
  const bridge = [node, `${PROXY_MOUNT}/${BRIDGE_SCRIPT}`, String(BRIDGE_PORT), `${PROXY_MOUNT}/${PROXY_SOCKET}`];
  if (options === undefined) return [...bridge, "--", ...command];
  return ["env", "-u", "NODE_OPTIONS", ...bridge, `--restore=NODE_OPTIONS=${options}`, "--", ...command];
}

/**
 * The variables that send a setup's tools through the bridge: the common `HTTP(S)_PROXY` pair in both cases (curl,
 * pip, Go, Cargo and git read them), npm's and Yarn's own (Yarn 2+ reads only `YARN_*`; no YARN_NO_PROXY, which Yarn
 * refuses), pip's `PIP_PROXY`, Cargo's `CARGO_HTTP_PROXY`, and an empty `NO_PROXY`. Maven reads a proxy only from
 * settings.xml and the JVM from system properties: a setup that needs them writes `~/.m2/settings.xml` itself.
 */
export function proxyVariables(port = BRIDGE_PORT): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: "",
    no_proxy: "",
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    YARN_HTTP_PROXY: url,
    YARN_HTTPS_PROXY: url,
    PIP_PROXY: url,
    CARGO_HTTP_PROXY: url,
  };
}
