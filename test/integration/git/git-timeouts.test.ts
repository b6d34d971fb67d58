import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { withShallowClone } from "../../../src/git/clone-repository.js";
import { gitHttpWithTimeout } from "../../../src/git/git-http-with-timeout.js";

const token = "ghs_testtoken1234567890";

/** A git server on 127.0.0.1 that accepts every request and then stalls: silent, or after the first bytes of an answer. */
let stalled: { url: string; requests: string[]; close(): Promise<void> } | undefined;
afterEach(async () => {
  await stalled?.close();
  stalled = undefined;
});
async function startStalledServer(mode: "silent" | "after-first-bytes") {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    request.resume();
    if (mode === "after-first-bytes") {
      response.writeHead(200, { "content-type": "application/x-git-upload-pack-advertisement" });
      response.write("001e# service=git-upload-pack\n");
    }
  });
  server.on("connection", (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stalled = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/octo/demo.git`,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return stalled;
}

const silence = /^the git server did not answer (GET|POST) http:\/\/127\.0\.0\.1:\d+\/octo\/demo\.git\/[\w-/]+ for 300 ms; it may be down or overloaded/;

describe("git over HTTP against a server that stalls", () => {
  it("a clone fails with a clear message when the server accepts the connection and never answers", async () => {
    const server = await startStalledServer("silent");
    const work = async () => "cloned";
    await expect(withShallowClone({ url: server.url, token, idleTimeoutMs: 300 }, "main", work)).rejects.toThrow(silence);
    expect(server.requests).toEqual(["GET /octo/demo.git/info/refs?service=git-upload-pack"]);
  }, 15_000);

  it("a clone fails the same way when the server stops in the middle of its answer", async () => {
    const server = await startStalledServer("after-first-bytes");
    await expect(withShallowClone({ url: server.url, token, idleTimeoutMs: 300 }, "main", async () => "cloned")).rejects.toThrow(silence);
  }, 15_000);
});

describe("git over HTTP against a server whose connection breaks", () => {
  it("fails the answer's next read at once, saying the connection broke, even when it broke while nothing was reading", async () => {
    const closed = new Promise<void>((resolve) => {
      const server = http.createServer((request, response) => {
        response.writeHead(200, { "content-type": "application/x-git-upload-pack-result" });
        response.write(Buffer.alloc(1000, 1));
        request.socket.once("close", () => resolve());
        setImmediate(() => request.socket.destroy());
      });
      server.listen(0, "127.0.0.1", () => {
        stalled = {
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/octo/demo.git`,
          requests: [],
          close: () => new Promise((done) => server.close(() => done())),
        };
        started(stalled.url);
      });
    });
    let started!: (url: string) => void;
    const url = await new Promise<string>((resolve) => (started = resolve));
    // A minute of allowed silence: a client that lost the break would wait it out, past this test's time.
    const client = gitHttpWithTimeout(60_000);
    const response = await client.request({ url: `${url}/git-upload-pack`, method: "POST", headers: {} });
    await closed;
    // The break reaches the client while nobody reads the answer.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const read = async () => {
      for await (const part of response.body!) expect(part.length).toBeGreaterThan(0);
    };
    await expect(read()).rejects.toThrow(
      /^the git server's connection for http:\/\/127\.0\.0\.1:\d+\/octo\/demo\.git\/git-upload-pack broke in the middle of its answer/,
    );
  }, 15_000);
});
