import { describe, expect, it } from "vitest";
import { formatIssue, MAX_ISSUE_CHARS } from "../../../src/pipeline/format-issue.js";

const lines = (n: number, word: string) => Array.from({ length: n }, (_, i) => `${word} line ${i}`).join("\n");
const cutNote = /\[… ([\d,]+) characters of (the issue's description|this hint) not shown …\]/g;

describe("formatIssue", () => {
  it("shows a short issue whole: title, body, then the hints as a list", () => {
    expect(formatIssue({ title: " Crash on save ", body: "Saving fails.\n", hints: ["Guidance from the maintainer: look at io.py", "Also on\nWindows"] })).toBe(
      "### Crash on save\n\nSaving fails.\n\n### Hints\n\n- Guidance from the maintainer: look at io.py\n\n- Also on\n  Windows",
    );
    expect(formatIssue({ title: "t", body: " ", hints: [] })).toBe("### t\n\n(no description)");
  });

  it("keeps the head and the tail of a 0.92 MB body, cut at line breaks, and says how much is not shown", () => {
    const body = `The description.\n${lines(62_000, "log")}\nValueError: the error at the end`;
    expect(body.length).toBeGreaterThan(900_000);
    const shown = formatIssue({ title: "t", body, hints: [] });
    expect(shown.length).toBeLessThan(MAX_ISSUE_CHARS + 200);
    expect(shown).toContain("### t\n\nThe description.\nlog line 0\n");
    expect(shown.endsWith("\nValueError: the error at the end")).toBe(true);
    const [note] = [...shown.matchAll(cutNote)];
    const kept = shown.replace(note![0], "").replace("### t\n\n", "").replace(/\n+/g, "\n");
    // What is shown plus what the note counts is the whole body, lines unbroken.
    expect(kept.length - 1 + Number(note![1]!.replace(/,/g, ""))).toBe(body.length);
    expect(kept.split("\n").every((line) => /^(The description\.|log line \d+|ValueError: the error at the end)$/.test(line))).toBe(true);
  });

  it("keeps every hint (the guidance first, a review last) when one of them is a pasted log", () => {
    const guidance = "Guidance from the maintainer: the bug is in parse()";
    const review = "The human review this revision answers: rename x";
    const shown = formatIssue({ title: "t", body: lines(3000, "body"), hints: [guidance, lines(2000, "pasted"), review] });
    // The budget counts the hints' own text, not the two spaces that indent their lines in the list.
    expect(shown.replace(/\n {2}/g, "\n").length).toBeLessThan(MAX_ISSUE_CHARS + 400);
    expect(shown).toContain(`- ${guidance}`);
    expect(shown).toContain(`- ${review}`);
    expect([...shown.matchAll(cutNote)].map((m) => m[2])).toEqual(["the issue's description", "this hint"]);
    expect(shown).toContain("- pasted line 0\n  pasted line 1\n");
  });

  it("gives a short body's unused share to the hints", () => {
    const shown = formatIssue({ title: "t", body: "Short.", hints: [lines(2000, "hint")] }).replace(/\n {2}/g, "\n");
    expect(shown.length).toBeGreaterThan(MAX_ISSUE_CHARS - 500);
    expect(shown.length).toBeLessThan(MAX_ISSUE_CHARS + 200);
  });

  it("cuts a long line where it must, never inside a surrogate pair, and a title at 256 characters", () => {
    const shown = formatIssue({ title: "T".repeat(300), body: "😀".repeat(20_000), hints: [] });
    expect(shown.startsWith(`### ${"T".repeat(255)}…\n\n`)).toBe(true);
    expect(shown).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
});
