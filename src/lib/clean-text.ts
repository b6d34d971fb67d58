import { stripVTControlCharacters } from "node:util";
import { redactSecrets } from "./redact-secrets.js";
import { scrubSecrets } from "./scrub-secrets.js";

// Characters a reader cannot see but a model reads: zero-width and joiner characters, bidi controls,
// soft hyphen, word joiners and invisible operators, the BOM, Unicode tag characters, and C0/C1 controls
// other than tab and newline. They are how instructions get smuggled past a human reviewer.
const HIDDEN =
  // eslint-disable-next-line no-control-regex, no-misleading-character-class -- control and combining characters are what it removes
  /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF9-\uFFFB]|\uDB40[\uDC00-\uDDEF]|[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

// A Markdown link reference definition on a line of its own (`[//]: # (text)`, `[x]: <> "text"`): GitHub renders nothing
// for it, which makes it the other common way to hide a comment in an issue. Its parts are the spaces after the colon, a
// destination, more spaces and a title, or spaces and a title; each run is taken whole (`(?=(…))\1`), since a pattern
// that could split a run of spaces between its parts tried every split: 40k spaces in one line took seconds.
const TITLE = /(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\))[ \t]*/.source;
const LINK_DEFINITION = new RegExp(`^ {0,3}\\[[^\\]\\n]+\\]:(?=([ \\t]*))\\1(?:(?=(\\S+))\\2(?=([ \\t]*))\\3(?:${TITLE})?|(?<=[ \\t])${TITLE})?$`);
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Removes HTML comments (closed or left open), Markdown link reference definitions outside code fences, and invisible
 * characters from text a person wrote, before a prompt sees it: nothing a reader of the rendered issue cannot see.
 */
export function cleanText(text: string): string {
  const visible = text
    .replace(/\r\n?/g, "\n")
    .replace(HIDDEN, "")
    // Hidden characters removed first so `<!\u200B--` cannot dodge the comment rule.
    .replace(/<!--[\s\S]*?(?:-->|$)/g, "");
  let fence: string | null = null;
  const lines = visible.split("\n").filter((line) => {
    const opener = FENCE.exec(line)?.[1];
    if (opener && (fence === null || (opener[0] === fence[0] && opener.length >= fence.length))) {
      fence = fence === null ? opener : null;
      return true;
    }
    return fence !== null || !LINK_DEFINITION.test(line);
  });
  return lines.join("\n").trim();
}

/**
 * Text a program printed (a test run, a CI check and its log), before a prompt or a comment shows it: terminal control
 * sequences removed, cleaned as a person's text is, and with secrets redacted (those known, and those a rule set
 * recognizes, see scrubSecrets).
 */
export async function cleanOutput(text: string, secrets: readonly (string | undefined)[] = []): Promise<string> {
  return redactSecrets(await scrubSecrets(cleanText(stripVTControlCharacters(text))), secrets);
}
