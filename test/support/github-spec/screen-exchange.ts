import { bodyTooLong, carriesUserToken, USER_TOKEN_OPERATIONS, type Reply } from "./github-rules.js";
import { checkGraphqlRequest, schema as graphqlSchema } from "./graphql-spec.js";
import { checkAnswerBody, checkParameters, checkRequestBody, compileAll, completeAnswer, operations } from "./rest-spec.js";
import { reportViolation } from "./violations.js";

export type { Reply } from "./github-rules.js";

/**
 * What a route is held to: GitHub's REST description (openapi-extract.json), its GraphQL schema, GitHub's documented
 * OAuth web flow (oauth-web-flow.ts checks those requests itself: no published schema describes them), or nothing.
 */
export type Spec = "rest" | "graphql" | "oauth" | "none";

/** One request as the fake routed it: its operation (`METHOD /path/{param}`), path parameters, path as sent, body, headers. */
export interface RoutedRequest {
  key: string;
  params: Record<string, string>;
  rawUri: string;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

const DOCS = "https://docs.github.com/rest";

const described = (request: RoutedRequest) => `${request.key.split(" ")[0]} ${decodeURIComponent(request.rawUri)}`;

/** GitHub's error answer: its message, the operation's documentation, and the status as text. */
function refusal(request: RoutedRequest, status: number, body: Record<string, unknown>): Reply {
  return [status, { ...body, documentation_url: operations()[request.key]?.documentationUrl ?? DOCS, status: String(status) }];
}

/** Reports the problems of a request, and answers as GitHub would. */
function refuse(request: RoutedRequest, status: number, problems: string[], body?: Record<string, unknown>): Reply {
  reportViolation(described(request), problems.join("; "));
  return refusal(request, status, body ?? { message: status === 422 ? `Invalid request.\n\n${problems.join("\n")}` : problems.join("\n") });
}

/**
 * Holds a request to GitHub's published descriptions and rules before the fake answers it: a request GitHub would
 * refuse gets GitHub's refusal (and fails the test, through violations.ts); undefined lets the fake answer.
 */
export function screenRequest(spec: Spec, request: RoutedRequest): Reply | undefined {
  if (spec === "none" || spec === "oauth") return undefined;
  const { body } = request;
  if (typeof body === "string") return refuse(request, 400, ["the body is not JSON"], { message: "Problems parsing JSON" });
  if (spec === "graphql") {
    const problems = checkGraphqlRequest(body);
    if (problems.length === 0) return undefined;
    reportViolation(described(request), problems.join("; "));
    // GitHub answers a GraphQL document it cannot run with HTTP 200 and `errors`.
    return [200, { errors: problems.map((message) => ({ message })) }];
  }
  const operation = operations()[request.key];
  if (!operation) return refuse(request, 404, ["the fake serves a route missing from openapi-extract.json: run scripts/extract-github-openapi.ts"]);
  const asUser = (USER_TOKEN_OPERATIONS as readonly string[]).includes(request.key) && carriesUserToken(request.headers);
  if (!operation.enabledForGitHubApps && !asUser)
    return refuse(request, 403, ["GitHub Apps may not call this operation"], { message: "Resource not accessible by integration" });
  const pathProblems = checkParameters(request.key, "path", request.params);
  if (pathProblems.length > 0) return refuse(request, 404, pathProblems, { message: "Not Found" });
  const query = Object.fromEntries(new URLSearchParams(request.rawUri.split("?")[1] ?? ""));
  const queryProblems = checkParameters(request.key, "query", query);
  const bodyProblems =
    body === undefined
      ? operation.requestBody?.required
        ? ["the request has no body, which the operation requires"]
        : []
      : checkRequestBody(request.key, body);
  // GitHub ignores a query parameter it does not know; the request is answered, and the test still fails.
  const unknown = queryProblems.filter((p) => p.includes("is not one of the operation's"));
  if (unknown.length > 0) reportViolation(described(request), unknown.join("; "));
  const invalid = [...queryProblems.filter((p) => !unknown.includes(p)), ...bodyProblems];
  if (invalid.length > 0) return refuse(request, 422, invalid);
  const tooLong = bodyTooLong(request.key, body);
  if (tooLong) {
    reportViolation(described(request), "body is longer than GitHub takes");
    return refusal(request, tooLong[0], tooLong[1] as Record<string, unknown>);
  }
  return undefined;
}

/**
 * The fake's answer as GitHub would give it: an error in GitHub's shape, and a JSON answer completed to its
 * schema (rest-spec.ts, completeAnswer) and checked against it; an answer that still breaks it fails the test.
 */
export function finishAnswer(spec: Spec, request: RoutedRequest, reply: Reply): Reply {
  if (spec !== "rest") return reply;
  const [status, body, headers] = reply;
  let answer = body;
  if (status >= 400 && body && typeof body === "object" && "message" in body) answer = refusal(request, status, body as Record<string, unknown>)[1];
  if (typeof answer === "string") {
    const accept = String(request.headers.accept ?? "");
    const declared = operations()[request.key]!.responses[String(status)];
    if (status < 300 && declared?.schema && !/\.raw\b/.test(accept))
      reportViolation(described(request), `the fake answered ${status} with text, but the request asked for JSON (accept: ${accept || "none"})`);
  } else if (answer !== undefined) {
    answer = completeAnswer(request.key, status, answer);
    const problems = checkAnswerBody(request.key, status, answer);
    if (problems.length > 0) reportViolation(`the fake's ${status} answer to ${described(request)}`, problems.join("; "));
  }
  return headers ? [status, answer, headers] : [status, answer];
}

/**
 * Compiles every check now (the schemas of every operation the fake serves, GitHub's GraphQL schema): a benchmark
 * calls it before it starts timing, so that no measured request pays for a compilation.
 */
export function compileEveryCheck(): void {
  compileAll();
  graphqlSchema();
}

/** A 500 for a request the fake itself failed to answer, which fails the test: the fake has a bug. */
export function fakeFailed(what: string, error: unknown): Reply {
  reportViolation(what, `the fake GitHub failed: ${(error as Error).stack ?? String(error)}`);
  return [500, { message: "Server Error" }];
}

/** GitHub's 404 for a request no route of the fake serves, which fails the test. */
export function unrouted(method: string, path: string): Reply {
  reportViolation(
    `${method} ${path}`,
    "no route of the fake GitHub matches it (it serves the operations listed in test/support/github-spec/openapi-extract.json)",
  );
  return [404, { message: "Not Found", documentation_url: DOCS, status: "404" }];
}
