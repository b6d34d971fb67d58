/** GitHub refused the bot's commit or the move of its branch (a branch protection rule, a ruleset); names the branch and GitHub's reason. */
export class CommitRefusedError extends Error {
  constructor(
    readonly branch: string,
    readonly reason: string,
  ) {
    super(`GitHub refused the commit to '${branch}': ${reason}`);
    this.name = "CommitRefusedError";
  }
}

/**
 * GitHub's messages as one line. A ruleset's refusal is a title, a blank line, then one paragraph per broken rule
 * ("Repository rule violations found\n\nCommits must have verified signatures.\n\n"): the title, a colon, the rules.
 */
export function describeRefusal(messages: string[]): string {
  const described = messages.map((message) => {
    const [title, ...rules] = message
      .split(/\n+/)
      .map((line) => line.trim())
      .filter((line) => line !== "");
    return rules.length > 0 ? `${title!.replace(/[.:]$/, "")}: ${rules.join("; ")}` : (title ?? "");
  });
  return described.filter((text) => text !== "").join("; ") || "GitHub gave no reason";
}

/** A REST answer that is a ruleset's refusal (422 or 409 saying "Repository rule violations"), as a CommitRefusedError; anything else as it was. */
export function asRuleRefusal(error: unknown, branch: string): unknown {
  const { status, response } = error as { status?: number; response?: { data?: { message?: unknown } } };
  const message = response?.data?.message;
  if ((status === 422 || status === 409) && typeof message === "string" && /repository rule violations/i.test(message)) {
    return new CommitRefusedError(branch, describeRefusal([message]));
  }
  return error;
}

/**
 * When GitHub refused a commit that changes workflow files (under `.github/workflows/`), why in plain words: GitHub
 * lets an app change them only with the `workflows` permission, which the app does not ask for and a workflow's
 * token cannot have. GitHub's words for it vary by endpoint, so the change's paths decide; null for any other case.
 */
export function workflowRefusal(error: unknown, branch: string, paths: string[]): string | null {
  const workflows = paths.filter((p) => p.startsWith(".github/workflows/"));
  const status = (error as { status?: number }).status;
  if (workflows.length === 0 || !(error instanceof CommitRefusedError || status === 403 || status === 422)) return null;
  const files = workflows.map((p) => `\`${p}\``).join(", ");
  return `GitHub refused the commit to '${branch}': it changes ${files}, and GitHub lets an app change workflow files only with the \`workflows\` permission, which MAGIS does not ask for (a workflow's token cannot have it).`;
}

/** What to do about a change to workflow files that GitHub refused. */
export const WORKFLOW_NEXT_STEP =
  "Make the workflow change by hand, or keep `.github/**` in `protected_paths` (the default), so that MAGIS lists such files under *Needs a human* instead of trying; then run again.";
