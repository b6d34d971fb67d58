import { setImmediate as nextTurn } from "node:timers/promises";
import { findSecrets } from "./find-secrets.js";

// The rules read the text in chunks, the event loop let go between them, so that no output holds it for long. Chunks
// overlap by more than the longest credential a rule finds (a PEM private key, at most 10,000 characters between its
// BEGIN and END lines; the next longest, a 1Password token, 1,300), so each credential lies whole in one chunk. A chunk
// ends, and the next one starts, at a line start where one is near (SNAP).
const CHUNK = 32 * 1024;
const OVERLAP = 12 * 1024;
const SNAP = 4 * 1024;
// Output holding this many credentials is no test log: the text past the chunk in which the last of them was found is
// withheld rather than scanned.
const MAX_SECRETS = 1000;

/** A password or secret written as a pair (`password=…`, `"secret": "…"`), a shape secretlint's rules leave to others. */
const PAIR = /\b(?:pass(?:word|wd)?|secret|client_secret)["']?\s*[:=]\s*["']?([^\s"',;]{6,})/gi;

/**
 * Removes the credentials secretlint's recommended rules recognize (see findSecrets), JSON Web Tokens, and passwords
 * and secrets written as pairs from text a program printed (test output, CI logs), before a prompt, a trace or a
 * comment holds it. Each is replaced by `[redacted]`; past MAX_SECRETS of them, the rest of the text is.
 */
export async function scrubSecrets(text: string): Promise<string> {
  if (text === "") return text;
  const { ranges, scanned } = await scanInChunks(text);
  await nextTurn();
  const head = text.slice(0, scanned);
  for (const match of head.matchAll(PAIR)) {
    // For a pair, only its value goes: the name says what was there.
    const start = match.index + match[0].lastIndexOf(match[1]!);
    ranges.push([start, start + match[1]!.length]);
  }
  ranges.push(...findWebTokens(head));
  const rest = text.length - scanned;
  const withheld = rest > 0 ? `[redacted: ${rest.toLocaleString("en-US")} more characters, past ${MAX_SECRETS.toLocaleString("en-US")} credentials]` : "";
  return replaceRanges(head, ranges) + withheld;
}

/**
 * The ranges of the credentials the rules find, chunk by chunk, each taken to the end of the word it ends in; and how
 * far the text was scanned (all of it, unless MAX_SECRETS were found before its end).
 */
async function scanInChunks(text: string): Promise<{ ranges: [number, number][]; scanned: number }> {
  const ranges: [number, number][] = [];
  for (let start = 0; ;) {
    await nextTurn();
    const end = start + CHUNK >= text.length ? text.length : lineStartIn(text, start + CHUNK - SNAP, start + CHUNK);
    const next = end === text.length ? end : lineStartIn(text, end - OVERLAP - SNAP, end - OVERLAP);
    const chunk = text.slice(start, end);
    for (const hit of await findSecrets(chunk)) {
      // A credential starting at or past the next chunk's start lies whole in a later chunk, and is found there.
      if (start + hit.start >= next) continue;
      // A rule may report a range that stops short of what it found (the AWS secret key's starts at the variable's
      // name and is as long as the key): the range is taken to cover it.
      let hitEnd = hit.end;
      for (const found of hit.found) {
        const at = chunk.slice(hit.start, hitEnd).includes(found) ? -1 : chunk.indexOf(found, hit.start);
        if (at >= 0) hitEnd = Math.max(hitEnd, at + found.length);
      }
      ranges.push([start + hit.start, start + hitEnd]);
    }
    if (next === text.length) return { ranges: toWordEnds(text, ranges), scanned: next };
    if (ranges.length >= MAX_SECRETS) return { ranges: toWordEnds(text, ranges), scanned: next };
    start = next;
  }
}

/** The start of the last line that starts in (from, to], or `to` when none does. */
function lineStartIn(text: string, from: number, to: number): number {
  const newline = text.slice(from, to).lastIndexOf("\n");
  return newline < 0 ? to : from + newline + 1;
}

const WORD = /\S*/y;

/**
 * Each range taken to the end of the run of non-space characters its end is in (a rule may report less than a whole
 * token), in one pass: ranges ending inside a word already walked share its end.
 */
function toWordEnds(text: string, ranges: [number, number][]): [number, number][] {
  let walked = 0;
  return [...ranges]
    .sort((a, b) => a[1] - b[1])
    .map(([start, end]) => {
      if (end > walked) {
        WORD.lastIndex = end;
        walked = end + WORD.exec(text)![0].length;
      }
      return [start, walked];
    });
}

/**
 * JSON Web Tokens (three base64url parts, the first two JSON objects, `eyJ…`), found part by part in the runs of
 * `[\w.-]`: one pattern for the whole token rescanned a run like `eyJ-eyJ-…` from each of its starts (1.6 s for 64 KiB).
 */
function findWebTokens(text: string): [number, number][] {
  const found: [number, number][] = [];
  // The shortest token: 3 + 8 characters, a dot, 3 + 8, a dot, 8.
  for (const run of text.matchAll(/[\w.-]{32,}/g)) {
    const parts = run[0].split(".");
    let at = run.index;
    for (let i = 0; i + 2 < parts.length;) {
      const [header, payload, signature] = [parts[i]!, parts[i + 1]!, parts[i + 2]!];
      const begins = headerStart(header);
      if (begins >= 0 && header.length - begins >= 11 && payload.startsWith("eyJ") && payload.length >= 11 && signature.length >= 8) {
        found.push([at + begins, at + header.length + payload.length + signature.length + 2]);
        at += header.length + payload.length + signature.length + 3;
        i += 3;
      } else {
        at += header.length + 1;
        i += 1;
      }
    }
  }
  return found;
}

/** Where a token's header starts in a dot-free part: the first `eyJ` at a word's start (the part's, or after a `-`). */
function headerStart(part: string): number {
  for (let at = part.indexOf("eyJ"); at >= 0; at = part.indexOf("eyJ", at + 1)) {
    if (at === 0 || part[at - 1] === "-") return at;
  }
  return -1;
}

/** `text` with each range (overlapping ones merged) replaced by `[redacted]`. */
function replaceRanges(text: string, ranges: [number, number][]): string {
  if (ranges.length === 0) return text;
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  for (const [start, end] of sorted) {
    if (end <= at) continue;
    out += text.slice(at, Math.max(at, start)) + "[redacted]";
    at = end;
  }
  return out + text.slice(at);
}
