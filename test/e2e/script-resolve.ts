import { STATIC_WAY, staticWay } from "../../examples/script-way.js";
import { reply, type ScriptedModel } from "../support/scripted-model.js";
import { judgeFiles } from "../support/judge-files.js";
import { editBlockReply } from "../support/edit-block-answer.js";

/** The repository of the end-to-end tests: a README with the typo of the example issue, and some code around it. */
export const REPO_FILES: Record<string, string> = {
  "README.md": "# Hello-World\n\nMy first repository on GitHub.\nPlease committ your changes before you push them.\n",
  "src/greet.js": "export function greet(name) {\n  return `Hello, ${name}!`;\n}\n",
  "src/math.js": "export function add(a, b) {\n  return a + b;\n}\n",
  "docs/guide.md": "# Guide\n\nRun `npm test` before opening a pull request.\n",
  ".github/workflows/ci.yml": "on: push\njobs: {}\n",
};

/** Words the test looks for in the pull request: one from the kick-off meeting, one from each QA review. */
export const MARKS = {
  kickoff: "I will fix the misspelled word on line 4 and touch nothing else",
  firstReview: "The typo is fixed but you also changed the first sentence",
  secondReview: "Only the misspelled word changed now",
};

const FIXED = "Please commit your changes before you push them.";

const TASK = { needs_change: true, description: "Line 4 of README.md spells 'commit' as 'committ'. Fix that word only." };

/** The answers of the plan (tasks, team, kick-off meeting, QA's role), the same in every run on REPO_FILES. */
const PLAN_ANSWERS: Record<string, unknown> = {
  "manager-define-task": TASK,
  // Where the repository's commands may run, the Manager chooses the way with the first file's task.
  "manager-define-task-and-way": { ...TASK, way: STATIC_WAY },
  "manager-design-developer": { name: "Docs Editor", role: "You are a careful technical writer. You fix typos without rewording." },
  "manager-open-meeting": { speech: "Welcome. Docs Editor owns README.md and fixes the typo the issue reports." },
  "developer-speak": { speech: `${MARKS.kickoff}.` },
  "manager-close-meeting": { speech: "Thank you. One task, no dependencies." },
  "developer-refine-role": { role: "You are a careful technical writer who fixes the one misspelled word in README.md." },
  "manager-make-plan": { steps: [["README.md"]], rationale: "A single task." },
  "developer-design-qa": { role: "You are a QA engineer who checks that only the typo changed." },
};

/** The attempt QA approves: the misspelled word alone. */
const APPROVED_ATTEMPT = {
  "developer-locate-lines": { path: "README.md", ranges: [{ start: 4, end: 4, why: "the typo" }] },
  "developer-write-code": editBlockReply("Please committ your changes before you push them.", FIXED),
  "qa-review": { approved: true, comment: `${MARKS.secondReview}. Approved.` },
};

/** Scripts the model for one successful run on REPO_FILES: README.md is located, fixed on the second attempt, approved. */
export function scriptResolve(model: ScriptedModel): void {
  scriptLocate(model);
  for (const [prompt, answer] of Object.entries({ ...PLAN_ANSWERS, ...staticWay })) model.script(prompt, answer);
  model
    .script(
      "developer-locate-lines",
      { path: "README.md", ranges: [{ start: 3, end: 4, why: "the typo is on line 4" }] },
      APPROVED_ATTEMPT["developer-locate-lines"],
    )
    .script(
      "developer-write-code",
      editBlockReply("My first repository on GitHub.\nPlease committ your changes before you push them.", `My first repo on GitHub.\n${FIXED}`),
      APPROVED_ATTEMPT["developer-write-code"],
    )
    .script("qa-review", { approved: false, comment: `${MARKS.firstReview}; change only the misspelled word.` }, APPROVED_ATTEMPT["qa-review"]);
}

/**
 * Scripts the model for any number of runs on REPO_FILES, at once or one after another: a run on an issue locates
 * README.md, fixes the typo on its first attempt and has it approved; a revision of the bot's pull request ends line 4
 * with "to GitHub".
 */
export function scriptEveryRun(model: ScriptedModel): void {
  const { "developer-write-code": typoFix, ...sameInEveryRun } = APPROVED_ATTEMPT;
  scriptLocate(model);
  for (const [prompt, answer] of Object.entries({ ...PLAN_ANSWERS, ...sameInEveryRun })) model.script(prompt, () => answer);
  for (const [prompt, answer] of Object.entries(staticWay)) model.script(prompt, answer);
  model
    .script("manager-triage-feedback", () => ({
      tasks: [{ path: "README.md", description: "End the sentence on line 4 with 'to GitHub', as the reviewer asks.", general_feedback: true }],
      declined: [],
    }))
    // The typo is fixed where it is still there; a revision edits the line the fix left.
    .script("developer-write-code", (request) =>
      request.messages.some((m) => m.content.includes("Please committ")) ? typoFix : editBlockReply(FIXED, FIXED.replace(/\.$/, " to GitHub.")),
    );
}

/** The Repository Custodian's answers, the same for every run: each file summarized, README.md alone relevant. */
function scriptLocate(model: ScriptedModel): void {
  model
    .script("custodian-summarize-file", (request) => ({ summary: `Summary of ${pathIn(request.messages)}` }))
    .script("custodian-summarize-diff", (request) => ({ message: `Changed ${pathIn(request.messages)}` }))
    .script("custodian-judge-relevance", (request) =>
      judgeFiles(request, (file) => {
        const relevant = file === "README.md";
        return { relevant, reason: relevant ? "The README holds the misspelled word." : "Unrelated to the typo." };
      }),
    );
}

/** Scripts a model whose every call fails with a 500 the client must not retry. */
export function scriptBrokenModel(): (request: unknown) => unknown {
  return () => reply.status(500, { error: { message: "model server is down" } }, { "x-should-retry": "false" });
}

function lastUser(messages: { role: string; content: string }[]): string {
  return [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
}

function pathIn(messages: { role: string; content: string }[]): string {
  return Object.keys(REPO_FILES).find((p) => lastUser(messages).includes(p)) ?? "a file";
}
