import { lintSource } from "@secretlint/core";
import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";

/**
 * Shapes secretlint's recommended rules leave to others, found in program output: JSON Web Tokens, and a password or
 * secret written as a pair (`password=…`, `"secret": "…"`).
 */
const EXTRA_SHAPES = [
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  /\b(?:pass(?:word|wd)?|secret|client_secret)["']?\s*[:=]\s*["']?([^\s"',;]{6,})/gi,
];

/**
 * Removes the credentials a maintained rule set recognizes (secretlint's recommended preset: AWS key pairs, private
 * keys, Slack, npm, GitHub, GCP, Azure, OpenAI and database URLs among them) and the shapes above from text a program
 * printed (test output, CI logs), before a prompt, a trace or a comment holds it. Each is replaced by `[redacted]`.
 */
export async function scrubSecrets(text: string): Promise<string> {
  if (text === "") return text;
  const result = await lintSource({
    source: { content: text, filePath: "/output.txt", ext: ".txt", contentType: "text" },
    options: { config: { rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: recommended }] } },
  });
  // A rule may report a range that stops short of its secret (the AWS secret key's starts at the variable's name and
  // is as long as the key): each is taken to the end of the word it ends in.
  const ranges: [number, number][] = result.messages.map((message) => [message.range[0], endOfWord(text, message.range[1])]);
  for (const shape of EXTRA_SHAPES) {
    for (const match of text.matchAll(shape)) {
      // For a pair, only its value goes: the name says what was there.
      const value = match[1];
      const start = value === undefined ? match.index : match.index + match[0].lastIndexOf(value);
      ranges.push([start, start + (value ?? match[0]).length]);
    }
  }
  return replaceRanges(text, ranges);
}

/** The end of the run of non-space characters at `at` (or `at` itself at a space or the end). */
function endOfWord(text: string, at: number): number {
  let end = at;
  while (end < text.length && !/\s/.test(text[end]!)) end++;
  return end;
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
