import type { PatchFile } from "../read-patch-hunks.js";
import { answerAsOracle } from "./answer-as-oracle.js";
import { answerAsReproducer, type OracleReproduction } from "./answer-reproducer.js";

/**
 * The oracle's answer to one call: the Reproducer's from the instance's tests, else the gold patch's. The first file's
 * task asked with the way is the task's answer with the way's after it, as the prompt orders them.
 */
export function answerCall(prompt: string, vars: Record<string, string>, gold: PatchFile[], reproduction: OracleReproduction | undefined): unknown {
  if (prompt === "manager-define-task-and-way") {
    const task = answerAsOracle("manager-define-task", vars, gold) as Record<string, unknown>;
    return { ...task, way: answerAsReproducer("manager-choose-way", vars, reproduction) };
  }
  return answerAsReproducer(prompt, vars, reproduction) ?? answerAsOracle(prompt, vars, gold);
}
