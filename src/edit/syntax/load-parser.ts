import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Language, Parser } from "web-tree-sitter";

const require = createRequire(import.meta.url);
const grammarDir = join(dirname(require.resolve("tree-sitter-wasms/package.json")), "out");

/** The last grammar load begun (after the runtime's): loads run one at a time. */
let loading: Promise<unknown> | null = null;
const parsers = new Map<string, Promise<Parser>>();

/** A parser for one grammar of tree-sitter-wasms; the runtime and each grammar are loaded once per process. */
export function loadParser(grammar: string): Promise<Parser> {
  loading ??= Parser.init();
  let parser = parsers.get(grammar);
  if (!parser) {
    // web-tree-sitter links each grammar's wasm through shared state: two grammars loading at once (tasks of one
    // plan step checking files in two languages) may resolve each other's symbols and fail, so loads wait in turn.
    parser = loading.then(async () => {
      const language = await Language.load(join(grammarDir, `tree-sitter-${grammar}.wasm`));
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
