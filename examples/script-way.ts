import type { AnswerFunction } from "../test/support/scripted-model.js";

/**
 * The Manager's scripted choice of the static way (no reproduction), for scripted runs whose issue is read, not
 * reproduced: where the repository's commands may run, the Manager is asked which way to take.
 */
export const staticWay: Record<string, AnswerFunction> = {
  "manager-choose-way": () => ({
    way: "static",
    reason: "Scripted: this issue is resolved by reading the code.",
    reproducer: { name: "Reproducer", role: "You show bugs with short scripts." },
  }),
};
