import type { IssueText } from "../types.js";
import { splitFences } from "./split-fences.js";
import { normalizeWord, tokenizeCode } from "./tokenize-code.js";

/** A file or module the issue names, as path components (`["xarray", "core", "variable.py"]`), and how sure we are. */
export interface PathMention {
  parts: string[];
  /** True for a module name (`xarray.core.variable`): the last part has no extension and may be a class. */
  module: boolean;
  /** Tracebacks and explicit file paths weigh more than a dotted name in prose. */
  strength: number;
}

/** A class, function or other name the issue names in code (`RST.__init__` gives `__init__` owned by `RST`). */
export interface NamedSymbol {
  /** As written, case kept: definitions are matched exactly. */
  name: string;
  /** The name written before it (`Class.method`, `module.name`), when there is one. */
  owner?: string;
  /** 2 where code is named on purpose (title, code spans, error messages), 1 in code blocks, traceback frames and prose. */
  strength: number;
}

/** What BM25 searches for: terms with weights, the files and modules the issue names outright, and the names it uses in code. */
export interface WeightedQuery {
  terms: Map<string, number>;
  mentions: PathMention[];
  symbols: NamedSymbol[];
  /** The title's words, lowercased: a file named like one of them (`groupby.py` for "groupby drops attrs") is what the issue is about. */
  titleWords: Set<string>;
  /** The title speaks of the documentation ("docs", "documentation"): the code that builds it is a candidate like any source. */
  aboutDocs: boolean;
}

// Weights of where a term was found. Titles are the issue's own summary; code, tracebacks and
// identifiers are precise where prose is vague.
const WEIGHT = { title: 2, titlePhrase: 2, prose: 1, code: 1.5, identifier: 1, tracebackName: 2, exceptionMessage: 2, pathPart: 1.5 };
/** Most distinct terms a query keeps; a 1 MB issue (pasted logs) would otherwise search for everything. */
const MAX_TERMS = 600;

// Issue text is anyone's input and reaches 65k characters a post: each pattern below must stay linear
// in its length. One that may scan far from where it is tried (FILE_PATH) is tried only where its run
// of characters begins (the lookbehinds) or at a drive letter: a try inside the run could not match
// more, only rescan it, and 100k characters of `a/a/a…` took a minute.
const INLINE_CODE = /`([^`\n]+)`/g;
const TRACEBACK_FRAME = /File "([^"\n]+)", line \d+(?:, in ([\w<>.]+))?/g;
// The last line of a traceback or a logged error: `TypeError: RST.__init__() got an unexpected keyword`.
const EXCEPTION_LINE = /^[ \t>]*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt|Failure)\b:[ \t]*(.+)$/gm;
const FILE_PATH =
  /(?:[A-Za-z]:|(?<![\w.@~+\\/-]))(?:[\w.@~+-]*[\\/])+[\w.+-]+\.[A-Za-z]{1,5}\b|(?<![\w-])[\w-]+\.(?:py|pyx|pyi|js|mjs|cjs|ts|tsx|jsx|rb|go|rs|java|kt|c|cc|cpp|h|hpp|cs|php|swift|scala|sh|rst|md|toml|cfg|ini|yml|yaml|json)\b/g;
const MODULE_NAME = /\b[a-z_][a-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*){1,6}\b/g;
// Identifiers that can only be code: snake_case, camelCase, dunder names, or a call `name(`.
const PRECISE_IDENTIFIER = /\b(?:[A-Za-z]\w*_\w+|_\w+|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*|\w+(?=\())\b/g;

// A word or a dotted chain of words, as code writes names (`a.b.C.d`, and `Server::close` in C++, Rust, PHP and Ruby).
// A chain starts anywhere but inside another (after a word's `.` or `::`): `::testing::Test` and `wsgi:app` start at their names.
const CODE_CHAIN = /(?<![\w.])(?<!\w::)[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_][\w]*)*/g;
const FILE_EXTENSION = /^(py|pyx|pyi|js|mjs|cjs|ts|tsx|jsx|rb|go|rs|java|kt|c|cc|cpp|h|hpp|cs|php|sh|rst|md|txt|toml|cfg|ini|yml|yaml|json|html|com|org|io)$/;
/** Heavier terms first, then in the order of their text. */
function byWeight(a: [string, number], b: [string, number]): number {
  return b[1] - a[1] || (a[0] < b[0] ? -1 : 1);
}

/** Most distinct symbols a query keeps; pasted code names hundreds. */
const MAX_SYMBOLS = 100;
/** Where a name is written on purpose (title, code spans, error messages) it counts this much; in code blocks, tracebacks and prose 1. */
const NAMED_ON_PURPOSE = 2;

const MARKDOWN_HEADING = /^[ \t]{0,3}#{1,6}[ \t][^\n]*$/gm;

const NOT_MODULES = /^(e\.g|i\.e|etc|vs|www\.|http|https)\b/i;

// An image says nothing the code's words match: its address is a host and a hash
// (`https://github.com/user-attachments/assets/9c1e…`), whose words match the project's release
// scripts, and its alt text is what GitHub fills in ("image", "Screenshot 2024-08-06 at 14 31 57").
// No part may run into the next image's start, and lengths are bounded, so unclosed images are read
// in linear time.
const MARKDOWN_IMAGE = /!\[[^[\]\n]{0,300}\]\([^()\s]{0,1000}\)/g;
const HTML_IMAGE = /<img\b[^<>]{0,2000}>/gi;
const UPLOADED_IMAGE =
  /https?:\/\/(?:(?:private-)?user-images\.githubusercontent\.com|github\.com\/user-attachments\/assets|github\.com\/[\w.-]+\/[\w.-]+\/assets)\/\S*/gi;

/** The text without its images (see MARKDOWN_IMAGE). */
function withoutImages(text: string): string {
  return text.replace(MARKDOWN_IMAGE, " ").replace(HTML_IMAGE, " ").replace(UPLOADED_IMAGE, " ");
}

// A pasted attachment in base64 (or any long run of letters and digits mixing cases): its fragments are no words, and
// 27,000 characters of it filled the query's 600 terms, the title's among the ones left out.
const BLOB = /[A-Za-z0-9+/]{120,}={0,2}/g;

function withoutBlobs(text: string): string {
  return text.replace(BLOB, (run) => (/\d/.test(run) && /[a-z]/.test(run) && /[A-Z]/.test(run) ? " " : run));
}

// A title speaking of the docs: "dev docs", "documentation", "sphinx-doc.org"; not the `:doc:` role of reStructuredText.
const ABOUT_DOCS = /(?<![\w:])(docs?|documentation)(?![\w:])/i;

// Language names that are not words: "C++ inline variables" is about `cpp.py`, `cpp/`, `*.cpp`.
function spellLanguages(text: string): string {
  return text.replace(/\b[Cc]\+\+/g, "cpp").replace(/\b[CcFf]#(?=\W|$)/g, (m) => `${m[0]!.toLowerCase()}sharp`);
}

/**
 * Each two adjacent words of a title joined as code joins a name: "Undefined variable for type parameters"
 * says `undefined_variable`, the message the checker defines. A pair that names nothing matches no file.
 */
function titlePhrases(title: string): string[] {
  const words = title.toLowerCase().match(/[a-z][a-z0-9]*/g) ?? [];
  const phrases: string[] = [];
  for (let i = 0; i + 1 < words.length; i++) {
    if (words[i]!.length > 2 && words[i + 1]!.length > 2) phrases.push(normalizeWord(`${words[i]}_${words[i + 1]}`));
  }
  return phrases;
}

function add(terms: Map<string, number>, tokens: string[], weight: number): void {
  for (const token of tokens) terms.set(token, (terms.get(token) ?? 0) + weight);
}

/** Splits a path as written in an issue into components, dropping interpreter and virtualenv prefixes. */
export function pathParts(raw: string): string[] {
  let cleaned = raw.replace(/\\/g, "/").replace(/:\d+(?::\d+)?$/, "");
  const site = cleaned.search(/(site|dist)-packages\//);
  if (site !== -1) cleaned = cleaned.slice(cleaned.indexOf("/", site) + 1);
  return cleaned.split("/").filter((part) => part !== "" && part !== "." && part !== ".." && part !== "~");
}

/** Most distinct files and modules a query keeps, in the order the issue names them. */
const MAX_MENTIONS = 200;

function collectMentions(text: string, mentions: Map<string, PathMention>): void {
  const push = (parts: string[], module: boolean, strength: number) => {
    if (parts.length === 0) return;
    const key = `${module}:${parts.join("/")}`;
    const existing = mentions.get(key);
    if (existing) existing.strength = Math.max(existing.strength, strength);
    else if (mentions.size < MAX_MENTIONS) mentions.set(key, { parts, module, strength });
  };
  // The deepest frame of a traceback is where it failed; the frames above it are its callers.
  const frames = [...text.matchAll(TRACEBACK_FRAME)];
  frames.forEach((frame, i) => {
    const next = frames[i + 1];
    const deepest =
      !next ||
      /\n\S/.test(
        text
          .slice(frame.index, next.index)
          .replace(/^[^\n]*\n/, "\n")
          .replace(/\n[ \t]+[^\n]*/g, ""),
      );
    push(pathParts(frame[1]!), false, deepest ? 3 : 2);
  });
  for (const match of text.matchAll(FILE_PATH)) {
    if (/^https?:/.test(text.slice(Math.max(0, match.index - 8), match.index + 5))) continue;
    push(pathParts(match[0]), false, match[0].includes("/") || match[0].includes("\\") ? 2 : 1);
  }
  for (const match of text.matchAll(MODULE_NAME)) {
    const name = match[0];
    if (NOT_MODULES.test(name) || /\.(py|js|ts|md|rst|txt|json|yml|yaml|toml|cfg|html|com|org|io)$/.test(name)) continue;
    if (text[match.index + name.length] === "/" || text[match.index - 1] === "/") continue; // part of a URL or path
    push(name.split("."), true, 1);
  }
}

// `(?<!_)` keeps a long run of underscores from being scanned again from each of its characters.
const EDGE_UNDERSCORES = /^_+|(?<!_)_+$/g;

function weighIdentifiers(terms: Map<string, number>, text: string): void {
  for (const match of text.matchAll(PRECISE_IDENTIFIER)) add(terms, [normalizeWord(match[0].replace(EDGE_UNDERSCORES, ""))], WEIGHT.identifier);
}

function weighCodeText(terms: Map<string, number>, code: string, weight: number): void {
  add(terms, tokenizeCode(code), weight);
  weighIdentifiers(terms, code);
}

/**
 * The names of a chain: its last part owned by the part before it, and each earlier part that reads
 * as a class (`xr.DataArray.chunk` gives `chunk` owned by `DataArray`, and `DataArray`).
 */
function collectSymbols(symbols: Map<string, NamedSymbol>, text: string, strength: number, pattern: RegExp = CODE_CHAIN): void {
  const push = (name: string, owner: string | undefined) => {
    if (name.length < 2) return;
    const key = `${owner ?? ""}.${name}`;
    const existing = symbols.get(key);
    if (existing) existing.strength = Math.max(existing.strength, strength);
    else symbols.set(key, { name, ...(owner ? { owner } : {}), strength });
  };
  for (const match of text.matchAll(pattern)) {
    const parts = match[0].split(/\.|::/);
    // `utils.py` is a file, which mentions handle; `a.b.c.d.e.f.g.h.i` is no name anyone writes.
    if (parts.length > 8 || (parts.length > 1 && FILE_EXTENSION.test(parts[parts.length - 1]!))) continue;
    parts.slice(0, -1).forEach((part) => /^[A-Z]/.test(part) && push(part, undefined));
    push(parts[parts.length - 1]!, parts.length > 1 ? parts[parts.length - 2] : undefined);
  }
}

// In prose only names that can only be code: dotted chains and the precise identifiers.
const PROSE_SYMBOL = new RegExp(`(?<![\\w.])(?<!\\w::)[A-Za-z_]\\w*(?:(?:\\.|::)[A-Za-z_]\\w*)+|${PRECISE_IDENTIFIER.source}`, "g");

/**
 * Builds the BM25 query of an issue: every term of the title, body and hints, weighted up where the
 * issue is precise — the title and its two-word phrases, code in fences and backticks, identifiers that
 * can only be code, the function names and file paths of tracebacks — plus the files and modules it
 * names outright, and what its title says of its subject.
 */
export function buildQuery(raw: IssueText): WeightedQuery {
  const clean = (text: string) => spellLanguages(withoutBlobs(withoutImages(text)));
  const issue = { title: clean(raw.title), body: clean(raw.body), hints: raw.hints.map(clean) };
  // What the issue names on purpose (its title, code spans, tracebacks, error messages, paths) apart from the rest, so
  // that the cap below keeps it first: no amount of pasted text can push the title out.
  const named = new Map<string, number>();
  const terms = new Map<string, number>();
  const mentions = new Map<string, PathMention>();
  const symbols = new Map<string, NamedSymbol>();
  add(named, tokenizeCode(issue.title), WEIGHT.title);
  add(named, titlePhrases(issue.title), WEIGHT.titlePhrase);
  weighIdentifiers(named, issue.title);
  collectMentions(issue.title, mentions);
  collectSymbols(symbols, issue.title, NAMED_ON_PURPOSE, PROSE_SYMBOL);
  for (const text of [issue.body, ...issue.hints]) {
    collectMentions(text, mentions);
    const fenced = splitFences(text);
    for (const code of fenced.code) {
      weighCodeText(terms, code, WEIGHT.code);
      // Code blocks hold output and logs as often as code: only names that can only be code count.
      collectSymbols(symbols, code, 1, PROSE_SYMBOL);
    }
    // Headings are the issue template's ("### Bug description", "### Pylint version"), the same in every
    // issue: their words say nothing about this one, and pull in the files that print such words.
    let prose = fenced.prose.replace(MARKDOWN_HEADING, " ");
    for (const inline of prose.matchAll(INLINE_CODE)) {
      weighCodeText(named, inline[1]!, WEIGHT.code);
      collectSymbols(symbols, inline[1]!, NAMED_ON_PURPOSE);
    }
    prose = prose.replace(INLINE_CODE, " ");
    for (const frame of text.matchAll(TRACEBACK_FRAME)) {
      if (!frame[2]) continue;
      add(named, tokenizeCode(frame[2]), WEIGHT.tracebackName);
      // A frame names a caller as often as the culprit, and its file is a mention already.
      collectSymbols(symbols, frame[2], 1);
    }
    // The error message names what failed (`RST.__init__() got an unexpected keyword argument`).
    for (const line of text.matchAll(EXCEPTION_LINE)) {
      add(named, tokenizeCode(line[1]!), WEIGHT.exceptionMessage);
      collectSymbols(symbols, line[1]!.replace(/(['"]).*?\1/g, " "), NAMED_ON_PURPOSE, PROSE_SYMBOL);
    }
    add(terms, tokenizeCode(prose), WEIGHT.prose);
    weighIdentifiers(terms, prose);
    collectSymbols(symbols, prose, 1, PROSE_SYMBOL);
  }
  for (const mention of mentions.values()) {
    for (const part of mention.parts.slice(-3)) add(named, tokenizeCode(part), WEIGHT.pathPart * (mention.strength > 1 ? 1 : 0.5));
  }
  // A term's weight is all it got; repetition (pasted logs) should not let one term drown the rest: dampen, then keep
  // the strongest terms, those named on purpose first.
  for (const [term, weight] of named) terms.set(term, (terms.get(term) ?? 0) + weight);
  const damped = [...terms]
    .filter(([term]) => term.length > 1)
    .map(([term, weight]): [string, number] => [term, weight <= 2 ? weight : 2 + Math.log2(weight - 1)])
    .sort((a, b) => Number(named.has(b[0])) - Number(named.has(a[0])) || byWeight(a, b))
    .slice(0, MAX_TERMS)
    .sort(byWeight);
  const strongest = [...symbols.values()].sort((a, b) => b.strength - a.strength).slice(0, MAX_SYMBOLS);
  return {
    terms: new Map(damped),
    mentions: [...mentions.values()],
    symbols: strongest,
    titleWords: new Set(issue.title.toLowerCase().match(/[a-z_][\w]*/g) ?? []),
    aboutDocs: ABOUT_DOCS.test(issue.title),
  };
}
