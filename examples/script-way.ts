import type { AnswerFunction } from "../test/support/scripted-model.js";

/** The Manager's answer on the way when it is static, as every prompt that asks the way gives it. */
export const STATIC_WAY = {
  reason: "Scripted: this issue is resolved by reading the code.",
  way: "static",
  reproducer: { name: "Reproducer", role: "You show bugs with short scripts." },
};

/**
 * The Manager's scripted choice of the static way (no reproduction), for scripted runs whose issue is read, not
 * reproduced: where the repository's commands may run, the Manager is asked which way to take (apart, as a revision
 * asks it; a first run asks it with the first file's task, see `defineTask`).
 */
export const staticWay: Record<string, AnswerFunction> = {
  "manager-choose-way": () => STATIC_WAY,
};

/**
 * The Manager's task for a file, scripted for both prompts that ask it: alone, and, for the first file where the
 * repository's commands may run, with the way beside it (static).
 */
export function defineTask(answer: AnswerFunction): Record<string, AnswerFunction> {
  return {
    "manager-define-task": answer,
    "manager-define-task-and-way": async (request) => ({ ...((await answer(request)) as object), way: STATIC_WAY }),
  };
}
