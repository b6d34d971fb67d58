import type { PathMention } from "./build-query.js";
import { extensionOf } from "./extension-of.js";

const TEST_PATH = /(^|\/)(tests?|testing|__tests__|spec)\/|(^|\/)(test_[^/]*|[^/]*_tests?\.\w+|[^/]*\.(test|spec)\.\w+|conftest\.py)$/i;
const EXAMPLE_PATH = /(^|\/)(examples?|samples?|benchmarks?|asv_bench|tutorials?)\//i;
const DOC_PATH = new RegExp(`(^|\\/)(docs?|doc_src)\\/|${EXAMPLE_PATH.source}`, "i");
// The documentation's own folder: its build configuration and extensions (`doc/conf.py`), not the
// examples it holds (`doc/en/example/`), which echo an issue's words as much as any example.
const DOCS_DIR = /(^|\/)docs?\//i;
const PROSE_FILE = /\.(md|rst|txt|adoc|markdown)$/i;
// Settings and data: they share an issue's vocabulary (option names, templates) but are rarely its cause.
const CONFIG_FILE = /\.(cfg|ini|toml|ya?ml|json|xml|properties|conf|txt)$|(^|\/)([^/.]+rc|\.[^/]+)$/i;
const TOOLING_DIR = /(^|\/)\.(github|gitlab|circleci|azure-pipelines)\//i;
const CHANGELOG = /(^|\/)(changes|changelog|history|news|release[-_]?notes|whatsnew|authors|contributors)[^/]*$/i;

/**
 * The main languages of a repository: file extensions holding at least a fifth of the bytes of its
 * code (tests, docs, prose and settings not counted). A Python project's issues are mostly fixed in
 * Python, even when its templates, scripts and style sheets use the same words.
 */
export function mainExtensions(files: Array<{ path: string; size: number }>): Set<string> {
  const bytes = new Map<string, number>();
  let total = 0;
  for (const file of files) {
    if (TEST_PATH.test(file.path) || DOC_PATH.test(file.path) || PROSE_FILE.test(file.path) || CONFIG_FILE.test(file.path) || CHANGELOG.test(file.path))
      continue;
    const ext = extensionOf(file.path);
    if (ext === "") continue;
    bytes.set(ext, (bytes.get(ext) ?? 0) + file.size);
    total += file.size;
  }
  return new Set([...bytes].filter(([, size]) => size >= total / 5).map(([ext]) => ext));
}

/**
 * How likely a file is, before reading the issue, to be the one a fix changes: fixes land in source
 * files of the repository's main languages; tests, examples and documentation mostly echo the words
 * of the issue without being its cause, and change logs list every feature name there is. An issue
 * about the docs (`aboutDocs`) is the exception: the code building them (`doc/conf.py`) is then as
 * likely as any source file.
 */
export function pathPrior(path: string, main: Set<string> = new Set(), aboutDocs = false): number {
  if (CHANGELOG.test(path)) return 0.3;
  let prior = 1;
  const mainLanguage = main.size === 0 || main.has(extensionOf(path));
  if (!mainLanguage) prior *= 0.6;
  if (TEST_PATH.test(path)) prior *= 0.5;
  if (DOC_PATH.test(path) && !(aboutDocs && mainLanguage && main.size > 0 && DOCS_DIR.test(path) && !EXAMPLE_PATH.test(path))) prior *= 0.6;
  if (PROSE_FILE.test(path)) prior *= 0.6;
  if (CONFIG_FILE.test(path)) prior *= 0.5;
  if (TOOLING_DIR.test(path)) prior *= 0.5;
  return prior;
}

// File names too common to say which file an issue means when a title word matches one.
const GENERIC_STEMS = /^(__init__|core|utils?|base|main|common|api|index|tests?|types?|misc|helpers?)$/;

/** A path as the ranking matches it, worked out once per file: its components lowercased, its module stem, its name. */
export interface PathShape {
  parts: string[];
  /** The components without the file's extension, `__init__` and `index` dropped: how a module name spells the file. */
  stem: string[];
  /** The file's name without its extension, lowercased. */
  name: string;
}

/** The shape of a path (see PathShape). */
export function pathShape(path: string): PathShape {
  const parts = path.toLowerCase().split("/");
  const stem = [...parts];
  stem[stem.length - 1] = stem[stem.length - 1]!.replace(/\.[^.]+$/, "");
  if (stem[stem.length - 1] === "__init__" || stem[stem.length - 1] === "index") stem.pop();
  const file = parts[parts.length - 1]!;
  const dot = file.lastIndexOf(".");
  return { parts, stem, name: dot > 0 ? file.slice(0, dot) : file };
}

/**
 * Whether the title names the file by its name alone, as titles name the part of a project they are
 * about ("groupby drops attrs" for `groupby.py`, "LaTeX writer" for `latex.py`): its name without the
 * extension is a word of the title, at least four letters long and not a name every project uses.
 */
export function namedByTitle(path: string | PathShape, titleWords: Set<string>): boolean {
  const { name } = typeof path === "string" ? pathShape(path) : path;
  return name.length >= 4 && !GENERIC_STEMS.test(name) && titleWords.has(name);
}

function trailingMatch(a: string[], b: string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

/**
 * How strongly the issue names a file, for each file in turn (see mentionStrength), with the mentions
 * lowercased once: a ranking asks it of every file sharing a word with the issue. A file whose last
 * component no mention ends in is answered at once.
 */
export function mentionScorer(mentions: PathMention[]): (path: PathShape) => number {
  const wanted = mentions.map((mention) => ({ ...mention, parts: mention.parts.map((p) => p.toLowerCase()) }));
  // A match needs the file's name (or, for a module, its stem's last part) to end the mention, or the mention less its class.
  const lasts = new Set(wanted.flatMap(({ module, parts }) => (module && parts.length > 2 ? parts.slice(-2) : parts.slice(-1))));
  return ({ parts, stem }) => {
    if (!lasts.has(parts[parts.length - 1]!) && !lasts.has(stem[stem.length - 1] ?? "")) return 0;
    let best = 0;
    for (const mention of wanted) {
      let matched: number;
      if (mention.module) {
        // The module may end in a class or function name: try the name as written and without its last part.
        matched = Math.max(trailingMatch(stem, mention.parts), mention.parts.length > 2 ? trailingMatch(stem, mention.parts.slice(0, -1)) : 0);
        if (matched < 2) matched = 0;
      } else {
        matched = trailingMatch(parts, mention.parts);
      }
      best = Math.max(best, Math.min(matched, 3) * mention.strength);
    }
    return best;
  };
}

/**
 * How strongly the issue names this file: the best mention, times how many trailing path components
 * agree (a bare `utils.py` is weak, `requests/utils.py` strong). Module names (`xarray.core.variable`,
 * or `xarray.core.variable.Variable` whose last part is a class) match the path without its extension.
 */
export function mentionStrength(path: string, mentions: PathMention[]): number {
  return mentionScorer(mentions)(pathShape(path));
}
