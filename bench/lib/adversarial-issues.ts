// Issue bodies that made buildQuery's or cleanText's patterns scan the text once per character (quadratic
// time): long runs without spaces, as in pasted attachments, minified code or logs, and long runs of spaces. Shared by bench/query.ts,
// which times them, and the tests, which check that a locate over them finishes.

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

function repeatTo(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** A base64 attachment as a browser pastes it: one line, letters, digits, `+` and `/` in no order. */
export function base64Attachment(length: number): string {
  let text = "";
  // A fixed stride through the alphabet: varied like real data, the same on every run.
  for (let i = 0; i < length; i++) text += BASE64[(i * 7919) % 64];
  return text;
}

/** Each adversarial body by name, `length` characters long. */
export function adversarialBodies(length: number): Record<string, string> {
  return {
    "a/a/a/… (path separators)": repeatTo("a/", length),
    "a.ba.b… (dotted names)": repeatTo("a.b", length),
    "a::a::… (C++ and Rust names)": repeatTo("a::", length),
    "`a::a:::a` (colons in a code span)": `\`${repeatTo("a:::", length - 2)}\``,
    "one word": repeatTo("a", length),
    "base64 attachment": base64Attachment(length),
    "a-a-a-… (dashed name)": repeatTo("a-", length),
    "a\\a\\a\\… (Windows separators)": repeatTo("a\\", length),
    "a____b (underscores)": `a${repeatTo("_", length - 2)}b`,
    "a$$$$b (dollars)": `a${repeatTo("$", length - 2)}b`,
    "``` on the last line": repeatTo("```a", length),
    "~~~ on the last line": repeatTo("~", length),
    "![![![… (unclosed image links)": repeatTo("![a", length),
    "![a](![a](… (unclosed image addresses)": repeatTo("![a](", length),
    "<img <img … (unclosed image tags)": repeatTo("<img ", length),
    "[x]: spaces a spaces b (cleanText)": `[x]:${repeatTo(" ", length / 2 - 3)}a${repeatTo(" ", length / 2 - 3)}b`,
  };
}
