import { staticWay } from "../../examples/script-way.js";
import type { FakeGitHubOptions } from "../support/github-api.js";
import { addCommit } from "../support/git-server.js";
import type { ScriptedModel, ScriptedRequest } from "../support/scripted-model.js";
import { FULL } from "./e2e-rig.js";
import { BOT_LOGIN } from "./payloads.js";
import { REPO_FILES } from "./script-resolve.js";
import { editBlockReply } from "../support/edit-block-answer.js";

/** A bot account on GitHub: its login and its user id. */
export interface BotAccount {
  login: string;
  userId: number;
}

/** The app's bot in the fake GitHub (slug `magis-bot`, user id 4242). */
const APP_BOT: BotAccount = { login: BOT_LOGIN, userId: 4242 };

/** The commit identity GitHub gives a bot: its login, and a noreply address made of its id and login. */
function botAuthor(bot: BotAccount): { name: string; email: string } {
  return { name: bot.login, email: `${bot.userId}+${bot.login}@users.noreply.github.com` };
}

/** The app bot's commit identity. */
export const BOT_AUTHOR = botAuthor(APP_BOT);

/** README.md as the bot's pull request left it: the typo of issue #1 fixed. */
export const README_FIXED = REPO_FILES["README.md"]!.replace("committ", "commit");
/** Line 4 of README_FIXED, the line the reviews comment on, and what the reviewer wants it to become. */
export const LINE_4 = "Please commit your changes before you push them.";
export const LINE_4_REVISED = "Please commit your changes before you push them to GitHub.";

/** The description of the bot's pull request, as the first run wrote it. */
export const ORIGINAL_REPORT = [
  "## MAGIS: Spelling error in the README file",
  "",
  "Fixes #1",
  "",
  "Changes 1 file (`README.md`). The QA Engineers approved 1 of 1 task.",
  "",
  "<details>\n<summary>Kick-off meeting transcript</summary>\n\n**Manager**:\n\n> Welcome.\n\n</details>",
].join("\n");

/** The diff hunk GitHub shows around line 4 of the bot's change. */
export const README_HUNK =
  "@@ -1,4 +1,4 @@\n # Hello-World\n \n My first repository on GitHub.\n-Please committ your changes before you push them.\n+Please commit your changes before you push them.";

/**
 * Pushes the bot branch `magis/issue-1` (one commit by `bot`, the app's by default, with `files`: by default the typo
 * fixed) and returns the fake pull request #2 on it, opened by that bot.
 */
export function seedBotPullRequest(
  root: string,
  options: { bot?: BotAccount; files?: Record<string, string> } = {},
): { head: string; pulls: NonNullable<FakeGitHubOptions["pulls"]> } {
  const bot = options.bot ?? APP_BOT;
  const head = addCommit(root, FULL, {
    branch: "magis/issue-1",
    from: "main",
    files: options.files ?? { "README.md": README_FIXED },
    // As the bot writes it; made here with git, not through the API, so unsigned: the trailer marks it the bot's.
    message: "Spelling error in the README file (#1)\n\nFixes #1\n\nMAGIS-Branch: magis/issue-1",
    author: botAuthor(bot),
  });
  return { head, pulls: [{ number: 2, head: "magis/issue-1", title: "Spelling error in the README file", body: ORIGINAL_REPORT, user: bot.login }] };
}

/** What one scripted revision does: the Manager's triage answer, and the Developer's edit of one file. */
export interface RevisionScript {
  triage: { tasks: { path: string; description: string; general_feedback: boolean }[]; declined: { path: string; reason: string }[] };
  edit: { path: string; line: number; old: string; new: string };
  /** QA verdicts in order (default: one approval); a function answers when called (and may act on the world first). */
  reviews?: ({ approved: boolean; comment: string } | ((request: ScriptedRequest) => unknown))[];
}

/** Scripts the model for revisions, one after another, in order. */
export function scriptRevisions(model: ScriptedModel, ...revisions: RevisionScript[]): void {
  for (const [prompt, answer] of Object.entries(staticWay)) model.script(prompt, answer);
  for (const r of revisions) {
    const reviews = r.reviews ?? [{ approved: true, comment: "The change does what the reviewer asked. Approved." }];
    model
      .script("manager-triage-feedback", r.triage)
      .script("manager-design-developer", { name: "Docs Editor", role: "You are a careful technical writer who follows review comments to the letter." })
      .script("developer-design-qa", { role: "You are a QA engineer who checks the change does what the reviewer asked and nothing else." });
    for (let i = 0; i < reviews.length; i++) {
      model
        .script("developer-locate-lines", { path: r.edit.path, ranges: [{ start: r.edit.line, end: r.edit.line, why: "the reviewer commented here" }] })
        .script("developer-write-code", editBlockReply(r.edit.old, r.edit.new))
        .script("qa-review", reviews[i]);
    }
  }
}

/** The revision of line 4 the reviewer asks for in most tests. */
export const REVISE_LINE_4: RevisionScript = {
  triage: {
    tasks: [{ path: "README.md", description: "End the sentence on line 4 with 'to GitHub', as the reviewer asks.", general_feedback: true }],
    declined: [],
  },
  edit: { path: "README.md", line: 4, old: LINE_4, new: LINE_4_REVISED },
};
