import type { TextAnswer } from "./types.js";
import { withoutThinkDraft } from "./without-think-draft.js";

/** A reproduction script as developer-write-reproduction answers it. */
export interface ScriptAnswer {
  /** What the script's run shows while the issue is there. */
  expected: string;
  /** Where the script goes, relative to the repository's root. */
  path: string;
  /** The shell command that runs it from the root. */
  command: string;
  /** The whole script, ending with a newline. */
  content: string;
}

/** The small fields, in the order the prompt asks for them. */
const KEYS = ["expected", "path", "command"] as const;
type Key = (typeof KEYS)[number];

/** The script format in one line, for the corrective message. */
export const SCRIPT_ANSWER_ASKED =
  "three lines `expected: <what the run shows while the issue is there>`, `path: <where the script goes>` and " +
  "`command: <the command that runs it>`, then the whole script in one fenced block (a line ``` before it and a line ``` after it).";

/** The reader of developer-write-reproduction's answer. */
export const scriptAnswer: TextAnswer<ScriptAnswer> = { asked: SCRIPT_ANSWER_ASKED, read: readScriptAnswer };

/**
 * Reads a script answer: `key: value` lines for expected, path and command (each once, outside the fence, in any
 * order, prose lines around them allowed) and the script in exactly one fenced block. Every refusal says what was wrong.
 */
export function readScriptAnswer(raw: string): { ok: true; value: ScriptAnswer } | { ok: false; problem: string } {
  const lines = withoutThinkDraft(raw).replace(/\r\n?/g, "\n").split("\n");
  const fenced = findFence(lines);
  if (!fenced.ok) return fenced;
  const outside = [...lines.slice(0, fenced.open), ...lines.slice(fenced.close + 1)];
  const second = findFence(outside);
  if (second.ok || second.problem !== NO_FENCE) {
    return {
      ok: false,
      problem:
        "the answer holds more than one fenced block; put the whole script in one block. If the script itself holds a line " +
        "of three backticks, fence it with four (````) instead",
    };
  }
  const fields = readFields(outside);
  if (!fields.ok) return fields;
  const content = lines.slice(fenced.open + 1, fenced.close).join("\n");
  if (content.trim() === "") return { ok: false, problem: "the fenced block is empty; put the whole script in it" };
  return { ok: true, value: { ...fields.value, content: `${content}\n` } };
}

const NO_FENCE = "the answer holds no fenced block with the script; put the whole script between a line ``` and a line ```";

/** The first fenced block: its opening and closing lines (CommonMark's rule: the closing fence is at least as long). */
function findFence(lines: string[]): { ok: true; open: number; close: number } | { ok: false; problem: string } {
  const open = lines.findIndex((line) => /^\s*```/.test(line));
  if (open === -1) return { ok: false, problem: NO_FENCE };
  const ticks = /^\s*(`+)/.exec(lines[open]!)![1]!.length;
  const close = lines.findIndex((line, i) => i > open && new RegExp(`^\\s*\`{${ticks},}\\s*$`).test(line));
  if (close === -1) {
    return {
      ok: false,
      problem: `the fenced block opened on line ${open + 1} is never closed (no line of ${ticks} backticks after it; was the answer cut off?); end the script with that line`,
    };
  }
  return { ok: true, open, close };
}

/** The `key: value` lines outside the fence, each key once and none empty. */
function readFields(lines: string[]): { ok: true; value: Record<Key, string> } | { ok: false; problem: string } {
  const found: Partial<Record<Key, string[]>> = {};
  for (const line of lines) {
    const match = /^\s*[*_]*([A-Za-z]+)[*_]*\s*:\s*(.*)$/.exec(line);
    const key = match?.[1]!.toLowerCase() as Key | undefined;
    if (!match || !key || !KEYS.includes(key)) continue;
    (found[key] ??= []).push(unquoted(match[2]!));
  }
  const value: Partial<Record<Key, string>> = {};
  for (const key of KEYS) {
    const given = found[key] ?? [];
    if (given.length === 0) return { ok: false, problem: `the answer has no line \`${key}: …\` outside the fenced block; ${FIELD_HELP[key]}` };
    if (given.length > 1) return { ok: false, problem: `the answer has ${given.length} lines \`${key}: …\`; write exactly one` };
    if (given[0] === "") return { ok: false, problem: `the line \`${key}:\` is empty; ${FIELD_HELP[key]}` };
    value[key] = given[0]!;
  }
  return { ok: true, value: value as Record<Key, string> };
}

const FIELD_HELP: Record<Key, string> = {
  expected: "say on it what the script's run shows while the issue is there",
  path: "give on it where the script goes, relative to the repository's root",
  command: "give on it the shell command that runs the script from the repository's root",
};

/** A value without the backticks or quotes a model may put around it. */
function unquoted(value: string): string {
  const trimmed = value.trim();
  const quoted = /^(`|"|')(.*)\1$/.exec(trimmed);
  return quoted ? quoted[2]!.trim() : trimmed;
}
