import type { AnswerFunction } from "../test/support/scripted-model.js";
import { judgeFiles } from "../test/support/judge-files.js";
import { pathIn } from "./read-request.js";

/** Scripted Repository Custodian answers: a summary per file, and each file judged relevant exactly when `isRelevant(path)`. */
export function custodianAnswers(isRelevant: (path: string) => boolean): Record<string, AnswerFunction> {
  return {
    "custodian-summarize-file": (r) => ({ summary: `Scripted summary of ${pathIn(r)}.` }),
    "custodian-summarize-diff": (r) => ({ message: `Scripted commit message for ${pathIn(r)}.` }),
    "custodian-judge-relevance": (r) =>
      judgeFiles(r, (path) => {
        const relevant = isRelevant(path);
        return { relevant, reason: relevant ? "Scripted: the issue is about this file." : "Scripted: the issue is not about this file." };
      }),
  };
}
