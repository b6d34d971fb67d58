import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createOctokitClass } from "../../../../src/github/client/create-octokit-class.js";
import { timeRequests, type RequestTiming } from "../../../../src/github/client/time-requests.js";
import type { Octokit } from "../../../../src/github/types.js";

const TOKEN = "ghs_timeRequestsToken0123456789abcdefgh";
let server: http.Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A stand-in for GitHub on 127.0.0.1 that notes when each request arrived and answers a branch read 404, the rest 200. */
async function startStandIn(): Promise<{ url: string; arrivals: number[] }> {
  const arrivals: number[] = [];
  server = http.createServer((request, response) => {
    arrivals.push(Date.now());
    request.resume();
    const missing = request.url!.includes("/branches/");
    response
      .writeHead(missing ? 404 : 200, { "content-type": "application/json" })
      .end(JSON.stringify(missing ? { message: "Branch not found" } : { data: {} }));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals };
}

describe("timeRequests", () => {
  it("tells each request's route (never its values), the wait GitHub's pacing held it, and its status", async () => {
    const { url, arrivals } = await startStandIn();
    const Bounded = createOctokitClass({ timeoutMs: 10_000 });
    // Throttling on, as in a job: writes go out a second apart.
    const octokit = new Bounded({ auth: { token: TOKEN }, baseUrl: url, retry: { enabled: false } }) as Octokit;
    const timings: RequestTiming[] = [];
    timeRequests(octokit, (timing) => timings.push(timing));
    const commit = `mutation($c: CreateCommitOnBranchInput!) { branch: updateRefs(input: {repositoryId: "R_1", refUpdates: []}) { clientMutationId } commit: createCommitOnBranch(input: $c) { commit { oid } } }`;
    await octokit.graphql(commit, { c: {} });
    await octokit.rest.issues.updateComment({ owner: "octo", repo: "demo", comment_id: 7, body: "secret-ish text" });
    await expect(octokit.rest.repos.getBranch({ owner: "octo", repo: "demo", branch: "magis/issue-5" })).rejects.toMatchObject({ status: 404 });
    expect(timings.map(({ method, route, status }) => ({ method, route, status }))).toEqual([
      { method: "POST", route: "/graphql updateRefs createCommitOnBranch", status: 200 },
      { method: "PATCH", route: "/repos/{owner}/{repo}/issues/comments/{comment_id}", status: 200 },
      { method: "GET", route: "/repos/{owner}/{repo}/branches/{branch}", status: 404 },
    ]);
    for (const [i, timing] of timings.entries()) {
      expect(timing.askedAt).toBeLessThanOrEqual(timing.sentAt);
      expect(timing.sentAt).toBeLessThanOrEqual(arrivals[i]!);
      expect(arrivals[i]!).toBeLessThanOrEqual(timing.endedAt);
    }
    // The pacing lets the second write out a second after the first went (which was after it was asked for): the wait
    // is in sentAt, not in the exchange.
    expect(timings[1]!.sentAt - timings[0]!.askedAt).toBeGreaterThanOrEqual(995);
    expect(timings[1]!.sentAt).toBeGreaterThan(timings[1]!.askedAt);
  });
});
