import { createRequire } from "node:module";
import { completeWebhookPayload } from "../support/github-spec/webhook-spec.js";

const require = createRequire(import.meta.url);
// The package ships its examples as JSON (its main); each definition lists real payloads per event.
const definitions = require("@octokit/webhooks-examples") as { name: string; examples: { action?: string }[] }[];

/**
 * A deep copy of the first real example payload of `event` with `action`, from @octokit/webhooks-examples, with the
 * fields GitHub has added since it was captured (completed to @octokit/webhooks-schemas).
 */
export function examplePayload(event: string, action: string): any {
  const definition = definitions.find((d) => d.name === event);
  const example = definition?.examples.find((e) => e.action === action);
  if (!example) throw new Error(`@octokit/webhooks-examples has no ${event}.${action} example`);
  return completeWebhookPayload(event, structuredClone(example));
}

/** Sets the installation a webhook is for; null leaves none, as in a workflow run's event (its token stands for one). */
function setInstallation(payload: any, installationId: number | null): void {
  if (installationId === null) delete payload.installation;
  else payload.installation = { id: installationId, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNzc=" };
}

/** The real `issues.labeled` example, with the label, sender, installation and issue number (default its own, 1) a test needs. */
export function labeledPayload(options: { label?: string; sender?: string; senderType?: "User" | "Bot"; installationId: number | null; issueNumber?: number }) {
  const payload = examplePayload("issues", "labeled");
  payload.issue.number = options.issueNumber ?? payload.issue.number;
  payload.label.name = options.label ?? "magis";
  payload.issue.labels.push(payload.label);
  payload.sender.login = options.sender ?? payload.sender.login;
  payload.sender.type = options.senderType ?? "User";
  setInstallation(payload, options.installationId);
  return payload;
}

/** The real `issue_comment.created` example with the given comment body, sender, installation and issue number (default its own, 1). */
export function commentPayload(options: { body: string; sender?: string; installationId: number | null; issueNumber?: number }) {
  const payload = examplePayload("issue_comment", "created");
  payload.issue.number = options.issueNumber ?? payload.issue.number;
  payload.comment.body = options.body;
  // Written now, as a live comment would be: the run reads the comments written before it as hints.
  payload.comment.created_at = payload.comment.updated_at = new Date().toISOString();
  payload.comment.user.login = options.sender ?? payload.comment.user.login;
  payload.sender.login = options.sender ?? payload.sender.login;
  setInstallation(payload, options.installationId);
  return payload;
}

/** The app's bot login in the fake GitHub (slug `magis-bot`). */
export const BOT_LOGIN = "magis-bot[bot]";

/**
 * The real `pull_request_review.submitted` example, adapted to the bot's pull request: its author is the app's bot
 * and its head is the bot branch (or, with `author`, a person's pull request), reviewed by `sender`.
 */
export function reviewPayload(options: {
  installationId: number | null;
  reviewId: number;
  state: "commented" | "changes_requested" | "approved";
  body?: string | null;
  sender?: string;
  senderType?: "User" | "Bot";
  pullNumber?: number;
  headRef?: string;
  author?: { login: string; type: "User" | "Bot" };
}) {
  const payload = examplePayload("pull_request_review", "submitted");
  const sender = options.sender ?? "Codertocat";
  payload.review.id = options.reviewId;
  payload.review.state = options.state;
  payload.review.body = options.body ?? null;
  payload.review.submitted_at = new Date().toISOString();
  payload.review.user.login = sender;
  payload.review.user.type = options.senderType ?? "User";
  payload.sender.login = sender;
  payload.sender.type = options.senderType ?? "User";
  const pull = payload.pull_request;
  pull.number = options.pullNumber ?? 2;
  pull.state = "open";
  const author = options.author ?? { login: BOT_LOGIN, type: "Bot" };
  pull.user.login = author.login;
  pull.user.type = author.type;
  pull.head.ref = options.headRef ?? "magis/issue-1";
  pull.base.ref = "main";
  setInstallation(payload, options.installationId);
  return payload;
}

/** An inline review comment as the API lists it, from the real `pull_request_review_comment` example plus the line fields GitHub sends today. */
export function reviewComment(options: {
  id: number;
  reviewId: number;
  path: string;
  line: number;
  startLine?: number;
  body: string;
  diffHunk: string;
  user?: string;
  inReplyTo?: number;
}) {
  const { comment } = examplePayload("pull_request_review_comment", "created");
  return {
    ...comment,
    id: options.id,
    pull_request_review_id: options.reviewId,
    path: options.path,
    line: options.line,
    start_line: options.startLine ?? null,
    side: "RIGHT" as const,
    subject_type: "line" as const,
    body: options.body,
    diff_hunk: options.diffHunk,
    user: { ...comment.user, login: options.user ?? "Codertocat", type: "User" as const },
    ...(options.inReplyTo ? { in_reply_to_id: options.inReplyTo } : {}),
  };
}

/** The real `issue_comment.created` example as a comment on pull request `pullNumber` (GitHub sends PR comments as issue comments). */
export function pullCommentPayload(options: { body: string; sender?: string; installationId: number | null; pullNumber?: number }) {
  const payload = commentPayload(options);
  payload.issue.number = options.pullNumber ?? 2;
  payload.issue.pull_request = { url: `https://api.github.com/repos/Codertocat/Hello-World/pulls/${options.pullNumber ?? 2}` };
  return payload;
}

/**
 * An `issues.closed` or `issues.unlabeled` webhook for the rig's issue, sent by `sender`: the real `unlabeled` example,
 * or for `closed` (the package has no example of it) the real `reopened` one with the action and state a close sends.
 */
export function withdrawnPayload(
  action: "closed" | "unlabeled",
  options: { installationId: number | null; sender?: string; senderType?: "User" | "Bot"; label?: string },
) {
  const payload = examplePayload("issues", action === "closed" ? "reopened" : "unlabeled");
  payload.action = action;
  payload.issue.number = 1;
  if (action === "closed") payload.issue.state = "closed";
  if (action === "unlabeled") payload.label = { ...(payload.label ?? { id: 1, color: "ededed", default: false }), name: options.label ?? "magis" };
  payload.sender.login = options.sender ?? "Codertocat";
  payload.sender.type = options.senderType ?? "User";
  setInstallation(payload, options.installationId);
  return payload;
}

/**
 * The real `check_suite.completed` example (a CI app finished on a commit), for `sha` on `branch`, pull request `pull`,
 * with the given conclusion; `workflow_run.completed` the same, as a sibling workflow's run (the Action's event).
 */
export function ciPayload(
  event: "check_suite" | "workflow_run",
  options: { sha: string; branch: string; pull: number; conclusion: string; installationId: number | null },
) {
  const payload = examplePayload(event, "completed");
  const run = event === "check_suite" ? payload.check_suite : payload.workflow_run;
  run.head_sha = options.sha;
  run.head_branch = options.branch;
  run.conclusion = options.conclusion;
  const repo = { id: payload.repository.id, url: payload.repository.url, name: payload.repository.name };
  run.pull_requests = [
    {
      id: 1000 + options.pull,
      number: options.pull,
      url: `${payload.repository.url}/pulls/${options.pull}`,
      head: { ref: options.branch, sha: options.sha, repo },
      base: { ref: "main", sha: "0".repeat(40), repo },
    },
  ];
  setInstallation(payload, options.installationId);
  return payload;
}
