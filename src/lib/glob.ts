/**
 * Globs of repository paths (`exclude`, `protected_paths`), matched in time linear in the path: the pattern becomes a
 * small automaton whose states are followed all at once, so no pattern can make a match backtrack (picomatch's
 * regular expressions took 22 s for one pattern of 19 stars and a path of 33 characters, blocking every webhook).
 *
 * What a pattern may hold: `*` (any characters but `/`; as a whole segment, at least one), `**` as a whole segment
 * (any number of folders; `dir/` then `**` also matches `dir`), `?` (one character but `/`), `[abc]`, `[a-z]` and `[!…]` or
 * `[^…]` (one character of, or not of, a set), `{a,b}` (either; not nested) and `\` before a character to take it as
 * it is. Dotfiles match like any file.
 */

/** The longest pattern taken, in characters. */
export const MAX_GLOB_LENGTH = 256;
/** The most patterns one `{a,b}`-expansion of a pattern may give. */
const MAX_EXPANSIONS = 64;

type Step =
  | { kind: "char"; test: (c: string) => boolean }
  /** Any run of characters but `/`; `min` 1 when the star is a whole segment. */
  | { kind: "star"; min: 0 | 1 }
  /** A `**` segment followed by its slash: zero or more whole folders. */
  | { kind: "folders" }
  /** A last `**` segment: the path before it, or anything below that. */
  | { kind: "below" }
  /** A pattern that is only `**`: anything. */
  | { kind: "anything" };

/** Why a pattern is refused, in words for the config's error listing, or null when it is taken. */
export function globProblem(pattern: string): string | null {
  if (pattern.length > MAX_GLOB_LENGTH) return `is ${pattern.length} characters long; a pattern may have at most ${MAX_GLOB_LENGTH}`;
  try {
    const expanded = expandBraces(pattern);
    for (const one of expanded) compile(one, false);
    return null;
  } catch (error) {
    return error instanceof GlobError ? error.message : String(error);
  }
}

/** A test of repository-relative paths (`/`-separated, no leading `./`) against any of `patterns`; throws a GlobError for one it refuses. */
export function globMatcher(patterns: readonly string[], options: { nocase?: boolean } = {}): (path: string) => boolean {
  const nocase = options.nocase ?? false;
  const automata = patterns.flatMap((pattern) => {
    if (pattern.length > MAX_GLOB_LENGTH) throw new GlobError(`the pattern '${pattern.slice(0, 40)}…' is longer than ${MAX_GLOB_LENGTH} characters`);
    return expandBraces(pattern).map((one) => compile(one, nocase));
  });
  return (path) => {
    const text = nocase ? path.toLowerCase() : path;
    return automata.some((steps) => run(steps, text));
  };
}

/** A pattern the matcher refuses: unbalanced brackets or braces, nested braces, too many expansions. */
export class GlobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GlobError";
  }
}

/** The patterns `{a,b}` stands for, in order; braces do not nest. */
function expandBraces(pattern: string): string[] {
  let results = [""];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\" && i + 1 < pattern.length) {
      results = results.map((r) => r + c + pattern[i + 1]);
      i++;
    } else if (c === "{") {
      const close = pattern.indexOf("}", i);
      if (close < 0) throw new GlobError("has a '{' without its '}'");
      const inner = pattern.slice(i + 1, close);
      if (inner.includes("{")) throw new GlobError("nests '{' inside '{…}'; write the alternatives out");
      const options = inner.split(",");
      if (results.length * options.length > MAX_EXPANSIONS) throw new GlobError(`stands for more than ${MAX_EXPANSIONS} patterns once its '{…}' are expanded`);
      results = results.flatMap((r) => options.map((option) => r + option));
      i = close;
    } else if (c === "}") {
      throw new GlobError("has a '}' without its '{'");
    } else {
      results = results.map((r) => r + c);
    }
  }
  return results;
}

/** The steps of one pattern without braces. */
function compile(pattern: string, nocase: boolean): Step[] {
  const text = pattern.replace(/^\.\//, "");
  if (text === "**") return [{ kind: "anything" }];
  const segments = text.split("/");
  const steps: Step[] = [];
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === "**") {
      // `a/**` also matches `a` itself; elsewhere `**/` is zero or more whole folders.
      if (last && index > 0) {
        steps.pop(); // the slash before it belongs to `below`
        steps.push({ kind: "below" });
      } else if (!last) {
        steps.push({ kind: "folders" });
      } else {
        steps.push({ kind: "anything" });
      }
      return;
    }
    steps.push(...segmentSteps(segment, nocase));
    if (!last) steps.push(literal("/", false));
  });
  return steps;
}

/** The steps of one segment: its literals, `?`, classes and stars (a `**` inside a segment is a star). */
function segmentSteps(segment: string, nocase: boolean): Step[] {
  const steps: Step[] = [];
  const wholeStar = /^\*+$/.test(segment);
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === "\\" && i + 1 < segment.length) {
      steps.push(literal(segment[++i]!, nocase));
    } else if (c === "*") {
      while (segment[i + 1] === "*") i++;
      steps.push({ kind: "star", min: wholeStar ? 1 : 0 });
    } else if (c === "?") {
      steps.push({ kind: "char", test: (x) => x !== "/" });
    } else if (c === "[") {
      const close = segment.indexOf("]", i + 2);
      if (close < 0) throw new GlobError("has a '[' without its ']'");
      steps.push({ kind: "char", test: characterClass(segment.slice(i + 1, close), nocase) });
      i = close;
    } else {
      steps.push(literal(c, nocase));
    }
  }
  return steps;
}

function literal(c: string, nocase: boolean): Step {
  const want = nocase ? c.toLowerCase() : c;
  return { kind: "char", test: (x) => x === want };
}

/** `abc`, `a-z`, or either after `!` or `^` (negated): one character but `/`. */
function characterClass(body: string, nocase: boolean): (c: string) => boolean {
  const negated = body.startsWith("!") || body.startsWith("^");
  const members = (negated ? body.slice(1) : body).replace(/\\(.)/g, "$1");
  const ranges: [string, string][] = [];
  for (let i = 0; i < members.length; i++) {
    const from = members[i]!;
    if (members[i + 1] === "-" && i + 2 < members.length) {
      ranges.push([from, members[i + 2]!]);
      i += 2;
    } else {
      ranges.push([from, from]);
    }
  }
  const folded = nocase ? ranges.map(([a, b]): [string, string] => [a.toLowerCase(), b.toLowerCase()]) : ranges;
  return (c) => c !== "/" && folded.some(([a, b]) => c >= a && c <= b) !== negated;
}

/**
 * Whether `steps` match all of `path`: the set of places the automaton may be in is carried through the path one
 * character at a time, so the work is the path's length times the pattern's.
 */
function run(steps: Step[], path: string): boolean {
  // A place is a step index, and for a star or a folder run, whether it has taken a character of the current run.
  let places = closure(steps, [{ at: 0, inside: false }]);
  for (const c of path) {
    const next: Place[] = [];
    for (const place of places) {
      const step = steps[place.at];
      if (!step) continue;
      switch (step.kind) {
        case "char":
          if (step.test(c)) next.push({ at: place.at + 1, inside: false });
          break;
        case "star":
          if (c !== "/") next.push({ at: place.at, inside: true });
          break;
        case "folders":
          // Inside a folder name; a slash ends the folder (then more folders may follow, or the rest of the pattern).
          if (c === "/") {
            if (place.inside) next.push({ at: place.at, inside: false }, { at: place.at + 1, inside: false });
          } else {
            next.push({ at: place.at, inside: true });
          }
          break;
        case "below":
          if (place.inside || c === "/") next.push({ at: place.at, inside: true });
          break;
        case "anything":
          next.push({ at: place.at, inside: true });
          break;
      }
    }
    places = closure(steps, dedupe(next));
    if (places.length === 0) return false;
  }
  return places.some((place) => place.at === steps.length);
}

interface Place {
  at: number;
  inside: boolean;
}

/** The places reachable without taking a character: past a star that may be empty, past zero folders, or at the end. */
function closure(steps: Step[], places: Place[]): Place[] {
  const seen = new Map<string, Place>();
  const stack = [...places];
  while (stack.length > 0) {
    const place = stack.pop()!;
    const key = `${place.at}:${place.inside}`;
    if (seen.has(key)) continue;
    seen.set(key, place);
    const step = steps[place.at];
    if (!step) continue;
    // A last `**` is the pattern's end: the path may stop before its slash, or anywhere below it.
    const skippable =
      (step.kind === "star" && (step.min === 0 || place.inside)) ||
      (step.kind === "folders" && !place.inside) ||
      step.kind === "anything" ||
      step.kind === "below";
    if (skippable) stack.push({ at: place.at + 1, inside: false });
  }
  return [...seen.values()];
}

function dedupe(places: Place[]): Place[] {
  const seen = new Set<string>();
  return places.filter((place) => {
    const key = `${place.at}:${place.inside}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
