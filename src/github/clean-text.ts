// Characters a reader cannot see but a model reads: zero-width and joiner characters, bidi controls,
// soft hyphen, word joiners and invisible operators, the BOM, Unicode tag characters, and C0/C1 controls
// other than tab and newline. They are how instructions get smuggled past a human reviewer.
const HIDDEN =
  /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF9-\uFFFB]|\uDB40[\uDC00-\uDDEF]|[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/** Removes HTML comments (closed or left open) and invisible characters from text a person wrote, before a prompt sees it. */
export function cleanText(text: string): string {
  return (
    text
      .replace(/\r\n?/g, "\n")
      .replace(HIDDEN, "")
      // Hidden characters removed first so `<!\u200B--` cannot dodge the comment rule.
      .replace(/<!--[\s\S]*?(?:-->|$)/g, "")
      .trim()
  );
}
