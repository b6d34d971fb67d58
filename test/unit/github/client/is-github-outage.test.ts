import { expect, it } from "vitest";
import { isGitHubOutage } from "../../../../src/github/client/is-github-outage.js";

// As Octokit's RequestError carries GitHub's answer.
const answered = (status: number) => Object.assign(new Error(`status ${status}`), { name: "HttpError", status });

it("takes GitHub's 5xx, 429, timeouts and failed connections for an outage, and a 4xx for the request's fault", () => {
  for (const status of [500, 502, 503, 504, 429]) expect(isGitHubOutage(answered(status))).toBe(true);
  for (const status of [400, 401, 403, 404, 409, 422]) expect(isGitHubOutage(answered(status))).toBe(false);
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:443"), { code: "ECONNREFUSED" });
  expect(isGitHubOutage(new TypeError("fetch failed", { cause: refused }))).toBe(true);
  expect(isGitHubOutage(Object.assign(new Error("This operation was aborted"), { name: "AbortError" }))).toBe(true);
  expect(isGitHubOutage(new Error("the config is not valid YAML"))).toBe(false);
  expect(isGitHubOutage("a string")).toBe(false);
});
