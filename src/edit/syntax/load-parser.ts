import { Language, Parser, type Tree } from "web-tree-sitter";
import { grammarWasm, readWasm, RUNTIME_WASM } from "./grammar-files.js";

/** The last grammar load begun (after the runtime's): loads run one at a time. */
let loading: Promise<unknown> | null = null;
const parsers = new Map<string, Promise<Parser>>();

/** A parser for one grammar of tree-sitter-wasms; the runtime and each grammar are loaded once per process. */
export function loadParser(grammar: string): Promise<Parser> {
  // Read inside the promise, so a missing file rejects like any other failed load.
  loading ??= Promise.resolve().then(() => Parser.init({ wasmBinary: readWasm(RUNTIME_WASM) }));
  let parser = parsers.get(grammar);
  if (!parser) {
    // web-tree-sitter links each grammar's wasm through shared state: two grammars loading at once (tasks of one
    // plan step checking files in two languages) may resolve each other's symbols and fail, so loads wait in turn.
    parser = loading.then(async () => {
      const language = await Language.load(readWasm(grammarWasm(grammar)));
      const created = new Parser();
      created.setLanguage(language);
      return created;
    });
    loading = parser.catch(() => undefined);
    // A grammar that fails to load is not cached, so the error is seen again rather than a stale rejection.
    parser.catch(() => parsers.delete(grammar));
    parsers.set(grammar, parser);
  }
  return parser;
}

/**
 * Parses `text` with the grammar's parser, or returns null when the grammar's own code fails on it (a
 * scanner's assertion, a function its build expects of the runtime). Such a failure leaves that parser
 * failing on every later text, so it is replaced by a fresh one of the same language, and the caller
 * treats the file as one without a grammar. A caller that was handed the failed parser before it was
 * replaced tries once more with the fresh one, since the failure was another text's; the failed parser
 * is not deleted, so such a caller meets its throw and never freed memory. The caller deletes the tree.
 */
export async function parseText(grammar: string, text: string): Promise<Tree | null> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const loaded = loadParser(grammar);
    const parser = await loaded;
    try {
      return parser.parse(text);
    } catch {
      if (parsers.get(grammar) !== loaded) continue;
      const fresh = new Parser();
      if (parser.language) fresh.setLanguage(parser.language);
      parsers.set(grammar, Promise.resolve(fresh));
      return null;
    }
  }
  return null;
}
