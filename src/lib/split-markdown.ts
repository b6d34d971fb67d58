/** How long each part of a split may be: the first (a description that holds more than its part), and every other. */
export interface PartLimits {
  first: number;
  rest: number;
  /** Whether the first part holds whole blocks only (unless its first is longer than a part): a description whose rest follows elsewhere. */
  wholeFirst?: boolean;
}

/** The smallest limit splitMarkdown takes: below it, a reopened fence or section could leave no room for the text. */
export const MIN_PART_LIMIT = 1024;

/** One part of a split: what reopens the fences and sections open where it starts, its slice of the text, what closes them. */
export interface MarkdownPart {
  open: string;
  /** The line break (or nothing, inside a cut line) between the part before and this one's body, which neither shows. */
  joint: string;
  body: string;
  close: string;
}

/**
 * Splits Markdown into parts of at most `limits.first` and then `limits.rest` characters (UTF-16 code units, as
 * `length` counts), in order. Parts break between top-level blocks (at a blank line outside any fence or
 * `<details>` section) and keep whole blocks together while they fit; a block longer than a part is cut between
 * lines, and a line longer than a quarter of a part between characters (never inside a surrogate pair). A part
 * that ends inside a fence or a section closes it, and the next one opens it again, so each part renders on its
 * own: never a fence left open. Each part's joint and body, joined, are the text.
 */
export function splitMarkdownParts(text: string, limits: PartLimits): MarkdownPart[] {
  const smallest = Math.min(limits.first, limits.rest);
  if (!(smallest >= MIN_PART_LIMIT)) throw new Error(`cannot split Markdown into parts of ${smallest} characters: parts take at least ${MIN_PART_LIMIT}`);
  const units = readUnits(text, Math.floor(smallest / 4));
  const parts: MarkdownPart[] = [];
  let part = startPart(units, 0);
  const limit = () => (parts.length === 0 ? limits.first : limits.rest);
  const finish = (next: number) => {
    parts.push({ open: part.open, joint: part.joint, body: part.body, close: units[next - 1]!.after.close });
    part = startPart(units, next);
  };
  for (const [from, to] of readBlocks(units)) {
    if (fits(part, units, [from, to], limit())) {
      for (let i = from; i < to; i++) add(part, units[i]!);
      continue;
    }
    if (part.filled && fits(startPart(units, from), units, [from, to], limits.rest)) {
      finish(from);
      for (let i = from; i < to; i++) add(part, units[i]!);
      continue;
    }
    // Longer than a part: cut between its units, closing and reopening what is open at each cut.
    if (limits.wholeFirst && parts.length === 0 && part.filled) finish(from);
    for (let i = from; i < to; i++) {
      if (!fits(part, units, [i, i + 1], limit())) {
        if (part.units > 0) finish(i);
        if (!fits(part, units, [i, i + 1], limit())) throw new Error("cannot split Markdown whose fences and sections nest this deep into parts this short");
      }
      add(part, units[i]!);
    }
  }
  if (part.units > 0 || parts.length === 0) parts.push({ open: part.open, joint: part.joint, body: part.body, close: units.at(-1)!.after.close });
  return parts;
}

/** splitMarkdownParts as the text of each part. */
export function splitMarkdown(text: string, limits: PartLimits): string[] {
  return splitMarkdownParts(text, limits).map((p) => p.open + p.body + p.close);
}

/** A fence or a `<details>` section, open at some point of the text: how to open it again and how to close it. */
interface Container {
  kind: "fence" | "details";
  open: string;
  close: string;
  /** A fence's character and length: it is closed by a run of the same character at least as long. */
  marker?: string;
}

/** The containers open at some point, outermost first, with the text that opens them all again and closes them all. */
interface Stack {
  containers: Container[];
  open: string;
  close: string;
}

/** A line (or a piece of a long one), what separates it from the one before, and what is open after it. */
interface Unit {
  text: string;
  sep: string;
  blank: boolean;
  after: Stack;
}

interface Part {
  open: string;
  joint: string;
  body: string;
  length: number;
  /** Units in it (a body of blank lines may still be ""). */
  units: number;
  /** Whether a unit in it is not blank: a part of blank lines alone is never ended. */
  filled: boolean;
}

const FENCE_OPEN = /^(\s*)(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^\s*(`{3,}|~{3,})\s*$/;
const DETAILS_OPEN = /^(\s*)<details(?:\s[^>]*)?>\s*(?:<summary>(.*)<\/summary>\s*)?$/i;
const SUMMARY = /^\s*<summary>(.*)<\/summary>\s*$/i;
const DETAILS_CLOSE = /^\s*<\/details>\s*$/i;
// What is reopened at a cut stays small, so a part of MIN_PART_LIMIT always has room for text: a fence's first line
// or a section's summary keeps 100 characters; a fence marker longer than that, an indentation past 16, or a
// container inside three others (the bot's reports nest a fence in two sections) is read as text.
const REOPEN_CHARS = 100;
const MAX_INDENT = 16;
const MAX_DEPTH = 3;

function readUnits(text: string, longest: number): Unit[] {
  const lines = text.split("\n");
  const units: Unit[] = [];
  let stack = EMPTY;
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    const top = stack.containers.at(-1);
    if (top?.kind === "fence") {
      const close = FENCE_CLOSE.exec(line);
      if (close && close[1]![0] === top.marker![0] && close[1]!.length >= top.marker!.length) stack = pop(stack);
    } else {
      const fence = FENCE_OPEN.exec(line);
      const details = DETAILS_OPEN.exec(line);
      const room = stack.containers.length < MAX_DEPTH;
      if (room && fence && fence[1]!.length <= MAX_INDENT && fence[2]!.length <= REOPEN_CHARS && !(fence[2]![0] === "`" && fence[3]!.includes("`"))) {
        const first = line.length > REOPEN_CHARS ? `${fence[1]}${fence[2]}` : line;
        stack = push(stack, { kind: "fence", open: `${first}\n`, close: `\n${fence[1]}${fence[2]}`, marker: fence[2] });
      } else if (room && details && details[1]!.length <= MAX_INDENT) {
        let summary = details[2];
        // A section's first line and its summary stay together, so a reopened section never has two summaries.
        const next = summary === undefined && i + 1 < lines.length ? SUMMARY.exec(lines[i + 1]!) : null;
        if (next) {
          summary = next[1];
          line = `${line}\n${lines[++i]}`;
        }
        const indent = details[1]!;
        const title = `${(summary ?? "").slice(0, REOPEN_CHARS)} (continued)`.trim();
        stack = push(stack, { kind: "details", open: `${indent}<details>\n${indent}<summary>${title}</summary>\n\n`, close: `\n\n${indent}</details>` });
      } else if (DETAILS_CLOSE.test(line) && top?.kind === "details") {
        stack = pop(stack);
      }
    }
    const blank = line.trim() === "";
    let at = 0;
    do {
      let end = Math.min(line.length, at + longest);
      if (end < line.length && isHighSurrogate(line.charCodeAt(end - 1))) end--;
      units.push({ text: line.slice(at, end), sep: at === 0 ? "\n" : "", blank, after: stack });
      at = end;
    } while (at < line.length);
  }
  units[0]!.sep = "";
  return units;
}

/**
 * The top-level blocks as [from, to) ranges of units: each ends after a blank line outside any fence or section. A
 * heading alone is kept with the block after it, so no part ends on a heading.
 */
function readBlocks(units: Unit[]): [number, number][] {
  const blocks: [number, number][] = [];
  let from = 0;
  for (let i = 0; i < units.length; i++) {
    const boundary = units[i]!.blank && units[i]!.after.containers.length === 0 && i + 1 < units.length && !units[i + 1]!.blank;
    if ((boundary && !isHeading(units, from, i)) || i === units.length - 1) {
      blocks.push([from, i + 1]);
      from = i + 1;
    }
  }
  return blocks;
}

/** Whether units [from, to] hold one ATX heading line and blank lines. */
function isHeading(units: Unit[], from: number, to: number): boolean {
  const lines = [];
  for (let i = from; i <= to; i++) if (!units[i]!.blank) lines.push(i);
  const [line] = lines;
  return lines.length === 1 && (line === 0 || units[line!]!.sep !== "") && /^ {0,3}#{1,6}(\s|$)/.test(units[line!]!.text);
}

function startPart(units: Unit[], at: number): Part {
  const open = at === 0 ? "" : units[at - 1]!.after.open;
  return { open, joint: units[at]?.sep ?? "", body: "", length: open.length, units: 0, filled: false };
}

function add(part: Part, unit: Unit): void {
  const text = part.units === 0 ? unit.text : unit.sep + unit.text;
  part.body += text;
  part.length += text.length;
  part.units++;
  part.filled ||= !unit.blank;
}

/** Whether units [from, to) fit in the part with what closes the containers open after them. */
function fits(part: Part, units: Unit[], [from, to]: [number, number], limit: number): boolean {
  let length = part.length;
  for (let i = from; i < to; i++) {
    length += (part.units === 0 && i === from ? 0 : units[i]!.sep.length) + units[i]!.text.length;
    if (length > limit) return false;
  }
  return length + units[to - 1]!.after.close.length <= limit;
}

const EMPTY: Stack = { containers: [], open: "", close: "" };

function push(stack: Stack, container: Container): Stack {
  return { containers: [...stack.containers, container], open: stack.open + container.open, close: container.close + stack.close };
}

function pop(stack: Stack): Stack {
  const containers = stack.containers.slice(0, -1);
  const last = stack.containers.at(-1)!;
  return { containers, open: stack.open.slice(0, -last.open.length), close: stack.close.slice(last.close.length) };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
