import { reply, type ScriptedModel } from "../support/scripted-model.js";

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

/** Scripts the model for one successful run on REPO_FILES: README.md is located, fixed on the second attempt, approved. */
export function scriptResolve(model: ScriptedModel): void {
  model
    .script("custodian-summarize-file", (request) => ({ summary: `Summary of ${pathIn(request.messages)}` }))
    .script("custodian-summarize-diff", (request) => ({ message: `Changed ${pathIn(request.messages)}` }))
    .script("custodian-judge-relevance", (request) => {
      const relevant = pathIn(request.messages) === "README.md";
      return { relevant, reason: relevant ? "The README holds the misspelled word." : "Unrelated to the typo." };
    })
    .script("manager-define-task", {
      needs_change: true,
      description: "Line 4 of README.md spells 'commit' as 'committ'. Fix that word only.",
    })
    .script("manager-design-developer", { name: "Docs Editor", role: "You are a careful technical writer. You fix typos without rewording." })
    .script("manager-open-meeting", { speech: "Welcome. Docs Editor owns README.md and fixes the typo the issue reports." })
    .script("developer-speak", { speech: `${MARKS.kickoff}.` })
    .script("manager-close-meeting", { speech: "Thank you. One task, no dependencies." })
    .script("developer-refine-role", { role: "You are a careful technical writer who fixes the one misspelled word in README.md." })
    .script("manager-make-plan", { steps: [["README.md"]], rationale: "A single task." })
    .script("developer-design-qa", { role: "You are a QA engineer who checks that only the typo changed." })
    .script(
      "developer-locate-lines",
      { path: "README.md", ranges: [{ start: 3, end: 4, why: "the typo is on line 4" }] },
      { path: "README.md", ranges: [{ start: 4, end: 4, why: "the typo" }] },
    )
    .script(
      "developer-write-code",
      { old: "My first repository on GitHub.\nPlease committ your changes before you push them.", new: `My first repo on GitHub.\n${FIXED}` },
      { old: "Please committ your changes before you push them.", new: FIXED },
    )
    .script(
      "qa-review",
      { approved: false, comment: `${MARKS.firstReview}; change only the misspelled word.` },
      { approved: true, comment: `${MARKS.secondReview}. Approved.` },
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
