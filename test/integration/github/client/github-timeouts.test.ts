import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Probot } from "probot";
import { afterEach, describe, expect, it } from "vitest";
import { createOctokitClass } from "../../../../src/github/client/create-octokit-class.js";
import { appPrivateKey } from "../../../support/app-private-key.js";

/** A stand-in for api.github.com on 127.0.0.1: `answer` replies to a request, or returns false to leave it hanging. */
interface StandIn {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

const standIns: StandIn[] = [];
afterEach(async () => {
  for (const standIn of standIns.splice(0)) await standIn.close();
});

async function startStandIn(answer: (request: http.IncomingMessage, response: http.ServerResponse, seen: number) => boolean): Promise<StandIn> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    request.resume();
    answer(request, response, requests.length);
  });
  server.on("connection", (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const standIn = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  standIns.push(standIn);
  return standIn;
}

const json = (response: http.ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  return true;
};
const token = (request: http.IncomingMessage, response: http.ServerResponse) =>
  request.method === "POST" &&
  /\/app\/installations\/\d+\/access_tokens$/.test(request.url!) &&
  json(response, 201, { token: "ghs_standin", expires_at: new Date(Date.now() + 3600_000).toISOString(), permissions: {} });

const privateKey = appPrivateKey();

/** A Probot app pointed at the stand-in, with the app's Octokit class and a 300 ms timeout. */
function probotAt(standIn: StandIn): Probot {
  return new Probot({ appId: 1, privateKey, baseUrl: standIn.url, logLevel: "fatal", Octokit: createOctokitClass({ timeoutMs: 300 }) });
}

const timeoutMessage = (method: string, path: string) =>
  new RegExp(`^GitHub did not answer ${method} http://127\\.0\\.0\\.1:\\d+${path} within 300 ms; .*raise MAGIS_GITHUB_TIMEOUT_MS`);

describe("GitHub API calls against a GitHub that accepts and never answers", () => {
  it("the app's own client fails with a timeout that names the request, without retrying it", async () => {
    const standIn = await startStandIn(() => false);
    const app = await probotAt(standIn).auth();
    await expect(app.rest.apps.getAuthenticated()).rejects.toThrow(timeoutMessage("GET", "/app"));
    expect(standIn.requests).toEqual(["GET /app"]);
  }, 15_000);

  it("an installation client fails the same way when the installation token request hangs", async () => {
    const standIn = await startStandIn(() => false);
    const octokit = await probotAt(standIn).auth(7);
    await expect(octokit.rest.issues.get({ owner: "o", repo: "r", issue_number: 1 })).rejects.toThrow(
      timeoutMessage("POST", "/app/installations/7/access_tokens"),
    );
  }, 15_000);

  it("an installation token asked for directly (as a job does for git) goes to the same GitHub and times out the same way", async () => {
    const standIn = await startStandIn(() => false);
    const octokit = await probotAt(standIn).auth(7);
    // Probot hands the app's auth a request of its own, without the client's baseUrl (it went to api.github.com) or timeout.
    await expect(octokit.auth({ type: "installation", installationId: 7 })).rejects.toThrow(timeoutMessage("POST", "/app/installations/7/access_tokens"));
    expect(standIn.requests).toEqual(["POST /app/installations/7/access_tokens"]);
  }, 15_000);

  it("an installation client's REST calls and the config loader's calls time out too", async () => {
    const standIn = await startStandIn((request, response) => token(request, response));
    const octokit = await probotAt(standIn).auth(7);
    await expect(octokit.rest.issues.get({ owner: "o", repo: "r", issue_number: 1 })).rejects.toThrow(timeoutMessage("GET", "/repos/o/r/issues/1"));
    await expect(octokit.config.get({ owner: "o", repo: "r", path: ".github/magis.yml" })).rejects.toThrow(
      timeoutMessage("GET", "/repos/o/r/contents/.github%2Fmagis.yml"),
    );
  }, 15_000);

  it("a GitHub that sends the headers and then stalls the body times out as well", async () => {
    const standIn = await startStandIn((request, response) => {
      if (token(request, response)) return true;
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"number": 1,');
      return true;
    });
    const octokit = await probotAt(standIn).auth(7);
    await expect(octokit.rest.issues.get({ owner: "o", repo: "r", issue_number: 1 })).rejects.toThrow(timeoutMessage("GET", "/repos/o/r/issues/1"));
  }, 15_000);

  it("a 502 is retried and the call succeeds", async () => {
    let comments = 0;
    const standIn = await startStandIn((request, response) => {
      if (token(request, response)) return true;
      return ++comments === 1 ? json(response, 502, { message: "Server Error" }) : json(response, 201, { id: 5, body: "hi" });
    });
    const octokit = await probotAt(standIn).auth(7);
    const { data } = await octokit.rest.issues.createComment({ owner: "o", repo: "r", issue_number: 1, body: "hi" });
    expect(data.id).toBe(5);
    expect(standIn.requests.filter((r) => r.startsWith("POST /repos/o/r/issues/1/comments"))).toHaveLength(2);
  }, 15_000);

  it("a rate limit that resets in an hour fails the call now instead of waiting", async () => {
    const standIn = await startStandIn((request, response) => {
      if (token(request, response)) return true;
      const reset = String(Math.floor(Date.now() / 1000) + 3600);
      response.writeHead(403, { "content-type": "application/json", "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset });
      response.end(JSON.stringify({ message: "API rate limit exceeded for installation ID 7." }));
      return true;
    });
    const octokit = await probotAt(standIn).auth(7);
    await expect(octokit.rest.issues.get({ owner: "o", repo: "r", issue_number: 1 })).rejects.toThrow(/API rate limit exceeded/);
    expect(standIn.requests.filter((r) => r.startsWith("GET /repos/o/r/issues/1"))).toHaveLength(1);
  }, 15_000);
});
