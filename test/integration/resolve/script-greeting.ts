import { custodianAnswers } from "../../../examples/script-custodian.js";
import { defineTask, staticWay } from "../../../examples/script-way.js";
import type { ScriptedModel } from "../../support/scripted-model.js";
import { editBlockReply } from "../../support/edit-block-answer.js";

/** What the scripted Developer of one file answers: the ranges it locates, then its code per attempt (the last repeats). */
export interface DeveloperScript {
  locate: unknown;
  write: { old: string; new: string }[];
}

/**
 * Scripts a team that changes the greeting in `files` (one task each, in one plan step, QA approving), the
 * Developer of each file answering as `developers` says; a request is told apart by the file it names.
 */
export function scriptGreeting(model: ScriptedModel, developers: Record<string, DeveloperScript>): void {
  const files = Object.keys(developers);
  for (const [prompt, answer] of Object.entries({
    ...custodianAnswers((file) => files.includes(file)),
    ...staticWay,
    ...defineTask(() => ({ needs_change: true, description: "Say bye instead of hello." })),
  }))
    model.script(prompt, answer);
  const fileOf = (content: string) => files.find((file) => content.includes(`\`${file}\``))!;
  const written = new Map<string, number>();
  model
    .script("manager-design-developer", () => ({ name: "Greeter", role: "You own the greeting." }))
    .script("manager-open-meeting", () => ({ speech: "Fix the greeting." }))
    .script("developer-speak", () => ({ speech: "I will." }))
    .script("manager-close-meeting", () => ({ speech: "Go." }))
    .script("developer-refine-role", () => ({ role: "You own the greeting." }))
    .script("developer-design-qa", () => ({ role: "You check the greeting." }))
    .script("manager-make-plan", () => ({ steps: [files], rationale: "Independent files." }))
    .script("developer-locate-lines", (r) => developers[fileOf(r.messages.at(-1)!.content)]!.locate)
    .script("developer-write-code", (r) => {
      const file = fileOf(r.messages.at(-1)!.content);
      const k = written.get(file) ?? 0;
      written.set(file, k + 1);
      const answers = developers[file]!.write;
      const { old, new: replacement } = answers[Math.min(k, answers.length - 1)]!;
      return editBlockReply(old, replacement);
    })
    .script("qa-review", () => ({ approved: true, comment: "Says bye." }));
}
