import { describe, expect, it } from "vitest";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { addedDiagnostics, ruleOf } from "../../../src/language-servers/added-diagnostics.js";

const at = (line: number, message: string, code?: string | number, severity: 1 | 2 | 3 | 4 = 1): Diagnostic => ({
  range: { start: { line, character: 4 }, end: { line, character: 8 } },
  message,
  severity,
  ...(code === undefined ? {} : { code }),
});

describe("addedDiagnostics", () => {
  const cases: { name: string; before: Diagnostic[]; after: Diagnostic[]; added: string[] }[] = [
    {
      name: "an error the file already had, moved by the change, is not added",
      before: [at(3, '"x" is not defined', "reportUndefinedVariable")],
      after: [at(9, '"x" is not defined', "reportUndefinedVariable")],
      added: [],
    },
    {
      name: "a second error with the same rule and message is added",
      before: [at(3, '"x" is not defined', "reportUndefinedVariable")],
      after: [at(3, '"x" is not defined', "reportUndefinedVariable"), at(7, '"x" is not defined', "reportUndefinedVariable")],
      added: ['8:5 reportUndefinedVariable "x" is not defined'],
    },
    {
      name: "the same message from another rule is added",
      before: [at(1, "Expected 1 argument", "2554")],
      after: [at(1, "Expected 1 argument", "2555")],
      added: ["2:5 2555 Expected 1 argument"],
    },
    {
      name: "warnings and hints are never added",
      before: [],
      after: [at(2, '"y" is possibly unbound', "reportPossiblyUnbound", 2), at(2, "unused", 6133, 4)],
      added: [],
    },
    { name: "an error without a rule is of the rule `syntax`", before: [], after: [at(0, "Expected expression")], added: ["1:5 syntax Expected expression"] },
    { name: "an error the change removes is not reported", before: [at(0, "Cannot find name 'a'.", 2304)], after: [], added: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(addedDiagnostics(c.before, c.after).map((p) => `${p.line}:${p.column} ${p.rule} ${p.message}`)).toEqual(c.added);
    });
  }

  it("names a numeric code as written in refuse_rules", () => {
    expect(ruleOf(at(0, "Cannot find name 'a'.", 2304))).toBe("2304");
  });
});
