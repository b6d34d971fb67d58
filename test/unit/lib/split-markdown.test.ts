import { describe, expect, it } from "vitest";
import { splitMarkdown, splitMarkdownParts, type PartLimits } from "../../../src/lib/split-markdown.js";

/** A small seeded generator (mulberry32), so a failing case can be run again from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["fix", "the", "greeting", "`code`", "日本語", "😀", "naïve", "→", "@bob", "<b>", "|", "𝔘𝔫𝔦"];

/** Random Markdown of about `size` characters: paragraphs, fences (``` and ~~~, indented), sections, long lines. */
function markdown(next: () => number, size: number): string {
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)]!;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const lines = (n: number, width: number) => Array.from({ length: n }, () => words(1 + Math.floor(next() * width)));
  const blocks: string[] = [];
  let length = 0;
  while (length < size) {
    const kind = Math.floor(next() * 6);
    const n = 1 + Math.floor(next() ** 3 * 400);
    let block: string;
    if (kind === 0) block = lines(n, 12).join("\n");
    else if (kind === 1) block = ["```diff", ...lines(n, 8).map((l) => `+${l}`), "```"].join("\n");
    else if (kind === 2) block = ["  ~~~~", ...lines(n, 8), "  ```", "  ~~~~"].join("\n");
    else if (kind === 3)
      block = ["<details>", `<summary>${words(3)}</summary>`, "", ...lines(n, 8), "", "```", ...lines(n, 4), "```", "", "</details>"].join("\n");
    else if (kind === 4) block = pick(WORDS).repeat(200 + Math.floor(next() * 6000));
    else
      block = `- **Attempt 1**: ${words(5)}\n\n  <details>\n  <summary>Diff</summary>\n\n  \`\`\`diff\n${lines(n, 6)
        .map((l) => `  ${l}`)
        .join("\n")}\n  \`\`\`\n\n  </details>`;
    blocks.push(block);
    length += block.length + 2;
  }
  return "\n".repeat(Math.floor(next() * 3)) + blocks.join(next() < 0.5 ? "\n\n" : "\n\n\n") + (next() < 0.5 ? "\n" : "");
}

/** The fences and sections a part leaves open at its end, read independently of the splitter. */
function leftOpen(text: string): string[] {
  const open: string[] = [];
  for (const line of text.split("\n")) {
    const top = open.at(-1);
    if (top && top !== "details") {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1]![0] === top[0] && close[1]!.length >= top.length) open.pop();
      continue;
    }
    const fence = /^\s*(`{3,}|~{3,})([^`]*)$/.exec(line);
    if (fence) open.push(fence[1]!);
    else if (/^\s*<details>/.test(line)) open.push("details");
    else if (/^\s*<\/details>\s*$/.test(line)) open.pop();
  }
  return open;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function checkSplit(text: string, limits: PartLimits) {
  const parts = splitMarkdownParts(text, limits);
  // Checked as booleans: a failure's diff of a 60k text would bury the message.
  expect(parts.map((p) => p.joint + p.body).join("") === text, "the parts hold the text, in order").toBe(true);
  parts.forEach((part, i) => {
    const whole = part.open + part.body + part.close;
    expect(whole.length, `part ${i}'s length`).toBeLessThanOrEqual(i === 0 ? limits.first : limits.rest);
    expect(leftOpen(whole), `what part ${i} leaves open`).toEqual([]);
    expect(LONE_SURROGATE.test(whole), `part ${i} splits a surrogate pair`).toBe(false);
    expect(part.body === "" && text !== "", `part ${i} is empty`).toBe(false);
  });
  return parts;
}

describe("splitMarkdown", () => {
  it("keeps a text that fits as one part, unchanged", () => {
    const text = "## Report\n\n```diff\n+a\n```\n";
    expect(splitMarkdown(text, { first: 1024, rest: 2048 })).toEqual([text]);
    expect(splitMarkdown("", { first: 1024, rest: 1024 })).toEqual([""]);
  });

  it("breaks between blocks and keeps each block whole while it fits a part", () => {
    const blocks = Array.from({ length: 30 }, (_, i) => `### Section ${i}\n\n${`word${i} `.repeat(60).trim()}`);
    const text = blocks.join("\n\n");
    const parts = checkSplit(text, { first: 1500, rest: 2000 });
    expect(parts.length).toBeGreaterThan(3);
    for (const part of parts) {
      expect(part.open).toBe("");
      expect(part.close).toBe("");
      expect(part.body).toMatch(/^### Section \d+\n/);
    }
  });

  it("closes a fence longer than a part at each cut and opens it again with its language", () => {
    const diff = Array.from({ length: 400 }, (_, i) => `+line ${i}`).join("\n");
    const text = `Intro\n\n\`\`\`\`diff\n${diff}\n\`\`\`\`\n\nAfter`;
    const parts = checkSplit(text, { first: 1024, rest: 1024 });
    expect(parts.length).toBeGreaterThan(3);
    expect(parts[0]!.body.startsWith("Intro\n\n````diff\n+line 0")).toBe(true);
    expect(parts[0]!.close).toBe("\n````");
    for (const part of parts.slice(1, -1)) expect(part).toMatchObject({ open: "````diff\n", close: "\n````" });
    expect(parts.at(-1)!.body.endsWith("````\n\nAfter")).toBe(true);
  });

  it("closes and reopens a collapsible section around a cut, marked as continued, with the fence inside it", () => {
    const body = Array.from({ length: 300 }, (_, i) => `  +line ${i}`).join("\n");
    const text = `- **Attempt 1**: approved\n\n  <details>\n  <summary>Diff of attempt 1</summary>\n\n  \`\`\`diff\n${body}\n  \`\`\`\n\n  </details>`;
    const parts = checkSplit(text, { first: 1200, rest: 1200 });
    expect(parts[1]!.open).toBe("  <details>\n  <summary>Diff of attempt 1 (continued)</summary>\n\n  ```diff\n");
    expect(parts[0]!.close).toBe("\n  ```\n\n  </details>");
  });

  it("cuts a line longer than a part between characters, never inside a surrogate pair", () => {
    const text = `${"x".repeat(255)}${"😀".repeat(3000)}`;
    const parts = checkSplit(text, { first: 1024, rest: 1024 });
    expect(parts.length).toBeGreaterThan(5);
  });

  it("keeps runs of blank lines, even ones longer than a part", () => {
    checkSplit(`\n\n${"\n".repeat(3000)}text\n\n`, { first: 1024, rest: 1024 });
  });

  it("refuses parts too short to hold a reopened fence and some text", () => {
    expect(() => splitMarkdown("text", { first: 1023, rest: 4096 })).toThrow("parts of 1023 characters: parts take at least 1024");
  });

  it("holds its promises on random Markdown: parts within their limits, in order, whole, every fence closed", () => {
    for (let seed = 1; seed <= 60; seed++) {
      const next = random(seed);
      const text = markdown(next, 2_000 + Math.floor(next() * 60_000));
      const first = 1024 + Math.floor(next() * 8_000);
      const rest = 1024 + Math.floor(next() * 8_000);
      const wholeFirst = next() < 0.5;
      try {
        checkSplit(text, { first, rest, wholeFirst });
      } catch (error) {
        throw new Error(`seed ${seed} (first ${first}, rest ${rest}, wholeFirst ${wholeFirst}): ${String(error)}`, { cause: error });
      }
    }
  });
});
