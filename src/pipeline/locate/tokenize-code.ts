// Words that say nothing about which file an issue is about: English glue words and the keywords
// and ubiquitous names of common languages (every Python file says `self`, every JS file `function`).
const STOP_WORDS = new Set(
  (
    "a an and are as at be been being but by can could did do does doing done for from had has have having " +
    "he her him his how i if in into is it its itself just let me more most my no nor not of off on once only " +
    "or other our out over own same she should so some such than that the their them then there these they " +
    "this those through to too under until up very was we were what when where which while who whom why will " +
    "with would you your also any all each few both here however get got using use used would like want " +
    "seems seem still way thing things something now one two see well able etc eg ie im ive dont doesnt isnt " +
    "def self cls return import elif else try except finally raise pass lambda yield none true false null " +
    "undefined function var const new public private protected static void async await break continue " +
    "case switch default package func end begin nil fn mut pub impl"
  ).split(" "),
);

// A word, or a chain of words joined by dots (module paths, attribute access).
const WORD_CHAIN = /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/g;
// Boundaries inside an identifier: lower→Upper, and the last capital of an acronym before a lowercase letter.
const CAMEL_BOUNDARY = /([a-z0-9])([A-Z])|([A-Z])([A-Z][a-z])/g;

/** Lowercases and drops a plural `s`, so "Sessions" and "session" meet. */
export function normalizeWord(word: string): string {
  const lower = word.toLowerCase();
  if (lower.length > 4 && lower.endsWith("s") && !/(ss|us|is|ys)$/.test(lower)) return lower.slice(0, -1);
  return lower;
}

function keep(word: string): boolean {
  return word.length > 1 && word.length < 64 && !STOP_WORDS.has(word);
}

// Leading and trailing `_`/`$`; `(?<![_$])` keeps a long run of them from being rescanned from each of its characters.
const EDGE_MARKS = /^[_$]+|(?<![_$])[_$]+$/g;

function pushIdentifier(tokens: string[], identifier: string): void {
  const bare = identifier.replace(EDGE_MARKS, "");
  if (bare === "") return;
  const whole = normalizeWord(bare);
  if (keep(whole)) tokens.push(whole);
  const parts = bare.replace(CAMEL_BOUNDARY, "$1$3_$2$4").split(/[_$]+/);
  if (parts.length < 2) return;
  for (const part of parts) {
    const word = normalizeWord(part);
    if (keep(word) && /^[a-z]/.test(word)) tokens.push(word);
  }
}

function expandChain(chain: string): string[] {
  const tokens: string[] = [];
  if (!chain.includes(".")) {
    pushIdentifier(tokens, chain);
    return tokens;
  }
  const parts = chain.split(".");
  // `self.x` and `this.x` chains are everywhere; a dotted name only says something as a module path.
  if (parts[0] !== "self" && parts[0] !== "this" && parts.length <= 6) tokens.push(chain.toLowerCase());
  for (const part of parts) pushIdentifier(tokens, part);
  return tokens;
}

// A hyphenated name: an option (`--ignore-imports`), a message (`unnecessary-lambda`), a setting or a package
// (`sphinx-doc`). Not inside a longer one (`a-b-c` is one name), nor a subtraction of single letters (`n-k`).
const HYPHENATED = /(?<!\w|\w-)[A-Za-z][A-Za-z0-9]+(?:-[A-Za-z][A-Za-z0-9]+)+(?!\w|-\w)/g;

/** Whether the UTF-16 code unit is an ASCII letter. */
function isLetter(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
}

/** Whether the UTF-16 code unit is an ASCII letter or digit. */
function isLetterOrDigit(code: number): boolean {
  return isLetter(code) || (code >= 48 && code <= 57);
}

/** Whether the UTF-16 code unit is one of `\w`'s or a hyphen: what a hyphenated name and its lookarounds are made of. */
function nameUnit(code: number): boolean {
  return isLetterOrDigit(code) || code === 95 || code === 45;
}

/**
 * The matches of HYPHENATED in `text`, in order, with where each starts. Every such name holds a hyphen between a
 * letter or digit and a letter, and lies, with all its lookarounds look at, inside one run of word characters and
 * hyphens; so only the runs around such hyphens are matched, not the whole text, which took a sixth of the time of
 * counting a file's terms.
 */
export function hyphenatedNames(text: string): Array<{ name: string; index: number }> {
  const names: Array<{ name: string; index: number }> = [];
  let searched = 0;
  for (let hyphen = text.indexOf("-", 1); hyphen !== -1; hyphen = text.indexOf("-", hyphen + 1)) {
    if (hyphen < searched) continue;
    if (!isLetterOrDigit(text.charCodeAt(hyphen - 1)) || !isLetter(text.charCodeAt(hyphen + 1))) continue;
    let start = hyphen - 1;
    while (start > 0 && nameUnit(text.charCodeAt(start - 1))) start--;
    let end = hyphen + 2;
    while (end < text.length && nameUnit(text.charCodeAt(end))) end++;
    for (const match of text.slice(start, end).matchAll(HYPHENATED)) names.push({ name: match[0], index: start + match.index });
    searched = end;
  }
  return names;
}

/**
 * The term of a hyphenated name: its words joined as code joins them (`ignore_imports`), so an issue saying
 * `--ignore-imports` meets the code reading `config.ignore_imports`, and the option's definition too. Its
 * words on their own come from the word chains as before.
 */
function compoundTerm(name: string): string | null {
  const term = normalizeWord(name.replace(/-/g, "_"));
  return keep(term) ? term : null;
}

/** The terms of the text's hyphenated names (see compoundTerm), once per occurrence. */
function compoundTerms(text: string): string[] {
  const terms: string[] = [];
  for (const { name } of hyphenatedNames(text)) {
    const term = compoundTerm(name);
    if (term) terms.push(term);
  }
  return terms;
}

// Code repeats its identifiers endlessly; expanding each distinct one once makes indexing several times faster.
const expansions = new Map<string, string[]>();
const MAX_CACHED = 200_000;

function expansionOf(chain: string): string[] {
  let expanded = expansions.get(chain);
  if (expanded === undefined) {
    expanded = expandChain(chain);
    if (expansions.size >= MAX_CACHED) expansions.clear();
    expansions.set(chain, expanded);
  }
  return expanded;
}

/**
 * Splits source code or issue text into search terms: each identifier whole (lowercased) plus its
 * camelCase / PascalCase / snake_case parts, and each dotted name whole plus its parts, without stop
 * words; then each hyphenated name joined as code would join it. `parseHTTPResponse` gives
 * "parsehttpresponse", "parse", "http", "response"; `--ignore-paths` "ignore", "path", "ignore_path".
 */
export function tokenizeCode(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.matchAll(WORD_CHAIN)) for (const token of expansionOf(match[0])) tokens.push(token);
  for (const term of compoundTerms(text)) tokens.push(term);
  return tokens;
}

/** The terms of {@link tokenizeCode} with how often each occurs in the text. */
export function countTerms(text: string): Map<string, number> {
  // Counting each distinct word chain first, then expanding it once, is a fifth faster than
  // expanding every occurrence: code repeats its names.
  // A box per chain takes one map lookup per repeat instead of a lookup and a store.
  const chains = new Map<string, { n: number }>();
  for (const chain of text.match(WORD_CHAIN) ?? []) {
    const box = chains.get(chain);
    if (box) box.n++;
    else chains.set(chain, { n: 1 });
  }
  const counts = new Map<string, number>();
  for (const [chain, { n }] of chains) for (const token of expansionOf(chain)) counts.set(token, (counts.get(token) ?? 0) + n);
  for (const term of compoundTerms(text)) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/** Calls `each` with every match (each name and where it starts, in order) and the 0-based line of `text` it starts on. */
function eachByLine(text: string, matches: Iterable<{ name: string; index: number }>, each: (name: string, line: number) => void): void {
  let line = 0;
  let lineEnd = text.indexOf("\n");
  for (const { name, index } of matches) {
    while (lineEnd !== -1 && index > lineEnd) {
      line++;
      lineEnd = text.indexOf("\n", lineEnd + 1);
    }
    each(name, line);
  }
}

/** The word chains of `text` and where each starts. */
function* wordChains(text: string): Generator<{ name: string; index: number }> {
  for (const match of text.matchAll(WORD_CHAIN)) yield { name: match[0], index: match.index };
}

/**
 * {@link countTerms} per run of `chunkLines` lines (at least one run; Infinity: the whole text).
 */
export function countTermsByChunk(text: string, chunkLines: number): Array<Map<string, number>> {
  if (chunkLines === Infinity) return [countTerms(text)];
  const chunks: Array<Map<string, number>> = [new Map()];
  const chunkOf = (line: number) => {
    const index = Math.floor(line / chunkLines);
    while (chunks.length <= index) chunks.push(new Map());
    return chunks[index]!;
  };
  eachByLine(text, wordChains(text), (chain, line) => {
    const counts = chunkOf(line);
    for (const token of expansionOf(chain)) counts.set(token, (counts.get(token) ?? 0) + 1);
  });
  eachByLine(text, hyphenatedNames(text), (name, line) => {
    const term = compoundTerm(name);
    if (term) chunkOf(line).set(term, (chunkOf(line).get(term) ?? 0) + 1);
  });
  return chunks;
}
