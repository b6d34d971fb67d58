import { shownPaths } from "../../src/pipeline/locate/judge-relevance.js";
import type { ScriptedRequest } from "./scripted-model.js";

/** One file's scripted verdict: relevant or not, with the reason given (a plain boolean gives a stock reason). */
export type ScriptedVerdict = boolean | { relevant: boolean; reason: string };

/**
 * A scripted answer to custodian-judge-relevance: a verdict for each file the request shows, in the order shown, each
 * from `verdict(path)`.
 */
export function judgeFiles(
  request: ScriptedRequest,
  verdict: (path: string) => ScriptedVerdict,
): { files: { path: string; reason: string; relevant: boolean }[] } {
  const user = request.messages.find((m) => m.role === "user")?.content ?? "";
  return {
    files: shownPaths(user).map((path) => {
      const said = verdict(path);
      const { relevant, reason } = typeof said === "boolean" ? { relevant: said, reason: said ? "scripted: relevant" : "scripted: not relevant" } : said;
      return { path, reason, relevant };
    }),
  };
}
