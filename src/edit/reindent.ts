/** A line of the model's `old` text and the file line it was matched to. */
export type LinePair = [model: string, file: string];

const indentOf = (line: string): string => /^[ \t]*/.exec(line)![0];
const isBlank = (line: string): boolean => line.trim() === "";

/**
 * Re-indent the model's replacement lines to the file: convert tabs/spaces to the file's style when the
 * model used the other one, then shift every line by the indent the model lost or added, measured on the
 * matched `old` lines (the most common shift wins when the lines disagree). Blank lines are left alone.
 * A replacement that already sits where the file is indented is not shifted, even when `old` lost its
 * indentation: a model may retype the lines it replaces loosely and the new ones with care.
 */
export function reindent(pairs: LinePair[], lines: string[]): { lines: string[]; changed: boolean } {
  const real = pairs.filter(([model, file]) => !isBlank(model) && !isBlank(file));
  if (real.length === 0) return { lines, changed: false };
  const convert = styleConverter(real);
  const converted = real.map(([model, file]): LinePair => [convert(model), file]);
  const shift = sitsAtFileIndent(converted, lines.map(convert)) ? { delta: 0, prefix: "" } : mostCommonShift(converted);
  if (!convert.active && shift.delta === 0) return { lines, changed: false };
  const out = lines.map((line) => (isBlank(line) ? line : applyShift(convert(line), shift)));
  return { lines: out, changed: true };
}

/**
 * Whether the replacement is indented as the file's matched lines, and not as the model's `old` lines (their least
 * indented lines compared): then `new` was written at the file's indentation, and only `old` lost (or gained) some.
 */
function sitsAtFileIndent(pairs: LinePair[], lines: string[]): boolean {
  const written = lines.filter((line) => !isBlank(line));
  if (written.length === 0) return false;
  const least = (texts: string[]): number => Math.min(...texts.map((line) => indentOf(line).length));
  const indent = least(written);
  return indent === least(pairs.map(([, file]) => file)) && indent !== least(pairs.map(([model]) => model));
}

interface Shift {
  delta: number;
  prefix: string;
}

function mostCommonShift(pairs: LinePair[]): Shift {
  const counts = new Map<number, { count: number; prefix: string }>();
  for (const [model, file] of pairs) {
    const fileIndent = indentOf(file);
    const delta = fileIndent.length - indentOf(model).length;
    const entry = counts.get(delta) ?? { count: 0, prefix: fileIndent.slice(0, Math.max(0, delta)) };
    entry.count++;
    counts.set(delta, entry);
  }
  let best: Shift = { delta: 0, prefix: "" };
  let bestCount = 0;
  for (const [delta, { count, prefix }] of counts) {
    if (count > bestCount) [best, bestCount] = [{ delta, prefix }, count];
  }
  return best;
}

function applyShift(line: string, shift: Shift): string {
  if (shift.delta > 0) return shift.prefix + line;
  if (shift.delta < 0) return line.slice(Math.min(-shift.delta, indentOf(line).length));
  return line;
}

type Converter = ((line: string) => string) & { active: boolean };

/**
 * A converter of leading whitespace into the file's style, inactive when model and file agree: when
 * `old` matched as written, `new` is taken as written too (a change of indentation may be the point).
 */
function styleConverter(pairs: LinePair[]): Converter {
  const modelIndents = pairs.map(([model]) => indentOf(model)).filter((s) => s !== "");
  const fileIndents = pairs.map(([, file]) => indentOf(file)).filter((s) => s !== "");
  const onlySpaces = (s: string): boolean => /^ +$/.test(s);
  const onlyTabs = (s: string): boolean => /^\t+$/.test(s);
  if (modelIndents.length > 0 && modelIndents.every(onlySpaces) && fileIndents.length > 0 && fileIndents.every(onlyTabs)) {
    const unit = spacesPerTab(pairs.map(([model, file]) => [indentOf(model).length, indentOf(file).length]));
    return converter((indent) => {
      const spaces = indent.replace(/\t/g, " ".repeat(unit)).length;
      return "\t".repeat(Math.floor(spaces / unit)) + " ".repeat(spaces % unit);
    });
  }
  if (modelIndents.length > 0 && modelIndents.every((s) => s.includes("\t")) && fileIndents.length > 0 && fileIndents.every(onlySpaces)) {
    const unit = spacesPerTab(pairs.map(([model, file]) => [indentOf(file).length, (indentOf(model).match(/\t/g) ?? []).length]));
    return converter((indent) => indent.replace(/\t/g, " ".repeat(unit)));
  }
  const identity = ((line: string) => line) as Converter;
  identity.active = false;
  return identity;
}

function converter(mapIndent: (indent: string) => string): Converter {
  const convert = ((line: string) => {
    const indent = indentOf(line);
    return mapIndent(indent) + line.slice(indent.length);
  }) as Converter;
  convert.active = true;
  return convert;
}

/**
 * Spaces per tab from [spaces, tabs] pairs: the ratio of the differences between two depths (robust to a
 * lost level), else the ratio at one depth, else 4.
 */
function spacesPerTab(depths: [spaces: number, tabs: number][]): number {
  const distinct = [...new Map(depths.filter(([, t]) => t > 0).map((d) => [d[1], d])).values()].sort((a, b) => a[1] - b[1]);
  const [low, high] = [distinct[0], distinct[distinct.length - 1]];
  if (low && high && high[1] > low[1]) {
    const unit = (high[0] - low[0]) / (high[1] - low[1]);
    if (Number.isInteger(unit) && unit >= 1) return unit;
  }
  if (low && Number.isInteger(low[0] / low[1]) && low[0] / low[1] >= 1) return low[0] / low[1];
  return 4;
}
