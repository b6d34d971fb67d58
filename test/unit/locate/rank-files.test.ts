import { describe, expect, it } from "vitest";
import { buildQuery } from "../../../src/pipeline/locate/build-query.js";
import { pathTerms, prepareFile } from "../../../src/pipeline/locate/prepare-document.js";
import { DEFAULT_RANK_OPTIONS, indexFiles, rankFiles } from "../../../src/pipeline/locate/rank-files.js";
import { sliceWork } from "../../../src/lib/slice-work.js";

const issue = (title: string, body = "") => buildQuery({ title, body, hints: [] });

const sessions = `class Session:
    def merge_environment_settings(self, url, proxies, stream, verify, cert):
        """Check the environment and merge it with some settings."""
        return merge_setting(verify, self.verify)
`;
const models = `class Response:
    def iter_content(self, chunk_size=1):
        return self.raw.read(chunk_size)
`;
const readme = "Requests is an HTTP library. Use a Session to keep settings.\n";

describe("rankFiles", () => {
  it("ranks the file that defines the names the issue uses first", async () => {
    const ranked = await rankFiles(
      [
        { path: "requests/sessions.py", text: sessions },
        { path: "requests/models.py", text: models },
        { path: "README.md", text: readme },
        { path: "requests/api.py", text: "from .sessions import Session\n" },
      ],
      issue("merge_environment_settings ignores verify"),
      10,
    );
    expect(ranked[0]!.path).toBe("requests/sessions.py");
  });

  it("works with one or two files", async () => {
    expect((await rankFiles([{ path: "a.py", text: models }], issue("iter_content chunk_size"), 10)).map((f) => f.path)).toEqual(["a.py"]);
    expect(
      (
        await rankFiles(
          [
            { path: "a.py", text: models },
            { path: "b.py", text: sessions },
          ],
          issue("iter_content"),
          10,
        )
      )[0]!.path,
    ).toBe("a.py");
  });

  it("returns nothing for no files or a query without words", async () => {
    expect(await rankFiles([], issue("anything"), 10)).toEqual([]);
    expect(await rankFiles([{ path: "a.py", text: models }], issue(""), 10)).toEqual([]);
  });

  it("leaves out files that share no term with the issue", async () => {
    const ranked = await rankFiles(
      [
        { path: "a.py", text: models },
        { path: "b.py", text: sessions },
        { path: "c.py", text: "x = 1\n" },
      ],
      issue("iter_content"),
      10,
    );
    expect(ranked.map((f) => f.path)).toEqual(["a.py"]);
  });

  it("breaks ties by path, whatever the input order", async () => {
    const files = ["c.py", "a.py", "b.py", "d.py"].map((path) => ({ path, text: "def frobnicate(): pass\n" }));
    const ranked = await rankFiles(files, issue("frobnicate"), 3);
    expect(ranked.map((f) => f.path)).toEqual(["a.py", "b.py", "c.py"]);
    expect(await rankFiles([...files].reverse(), issue("frobnicate"), 3)).toEqual(ranked);
  });

  it("does not let a long file lose merely by its length", async () => {
    const filler = Array.from({ length: 3000 }, (_, i) => `def helper_${i}(value):\n    return value + ${i}\n`).join("");
    const long = `${filler}\ndef coarsen_reduce(window):\n    raise KeyError(window)  # coarsen drops the coordinate\n${filler}`;
    const short = "# a short note that mentions coarsen once\nx = 1\n";
    const others = Array.from({ length: 5 }, (_, i) => ({ path: `pkg/other${i}.py`, text: `def unrelated_${i}(): pass\n` }));
    const ranked = await rankFiles(
      [{ path: "pkg/rolling.py", text: long }, { path: "pkg/note.py", text: short }, ...others],
      issue("coarsen_reduce raises KeyError in coarsen"),
      5,
    );
    expect(ranked[0]!.path).toBe("pkg/rolling.py");
  });

  it("ranks a file a traceback names above one that only shares words", async () => {
    const files = [
      { path: "pkg/io/reader.py", text: "def read_table(path):\n    return parse(path)\n" },
      { path: "pkg/io/parse.py", text: "def parse(path):\n    table = read_table_header(path)\n    return table\n" },
      { path: "pkg/core.py", text: "def main(): pass\n" },
    ];
    const query = issue("read_table fails", 'Traceback:\n  File "/env/site-packages/pkg/io/parse.py", line 2, in parse\nValueError');
    expect((await rankFiles(files, query, 3))[0]!.path).toBe("pkg/io/parse.py");
  });

  it("puts source before tests that echo the same words", async () => {
    const text = "def parse_header(line):\n    return line.split(':')\n";
    const ranked = await rankFiles(
      [
        { path: "tests/test_header.py", text: `${text}\ndef test_parse_header():\n    assert parse_header('a: b')\n` },
        { path: "pkg/header.py", text },
        { path: "pkg/x.py", text: "y = 2\n" },
      ],
      issue("parse_header splits on every colon"),
      3,
    );
    expect(ranked.map((f) => f.path)).toEqual(["pkg/header.py", "tests/test_header.py"]);
  });
});

describe("rankFiles and what the title says", () => {
  // A hub that mentions everything, the module the title names by its file name, and an unrelated one.
  const hub = `class Dataset:
${Array.from(
  { length: 40 },
  (_, i) => `    def reduce_${i}(self, dim):
        return self.groupby(dim).reduce(dim, index=${i})
`,
).join("")}`;
  const groupby = "class GroupBy:\n    def reduce(self, func, dim):\n        return func(self.obj, dim)\n";
  const files = [
    { path: "pkg/core/dataset.py", text: hub },
    { path: "pkg/core/groupby.py", text: groupby },
    { path: "pkg/core/variable.py", text: "class Variable:\n    def reduce(self, func): pass\n" },
  ];

  it("multiplies the score of a file the title names by its file name alone", async () => {
    const query = issue("groupby reduce loses the index", "reduce over dim gives the wrong index");
    const plain = await rankFiles(files, query, 3, { ranking: { ...DEFAULT_RANK_OPTIONS, titleNameBoost: 0 } });
    const named = await rankFiles(files, query, 3);
    const score = (ranked: Array<{ path: string; score: number }>, path: string) => ranked.find((f) => f.path === path)!.score;
    expect(score(named, "pkg/core/groupby.py") / score(plain, "pkg/core/groupby.py")).toBeCloseTo(1 + DEFAULT_RANK_OPTIONS.titleNameBoost, 2);
    expect(score(named, "pkg/core/dataset.py")).toBe(score(plain, "pkg/core/dataset.py"));
    // Named only in the body, the file gets nothing.
    const body = issue("reduce loses the index", "after groupby, reduce over dim gives the wrong index");
    expect(await rankFiles(files, body, 3)).toEqual(await rankFiles(files, body, 3, { ranking: { ...DEFAULT_RANK_OPTIONS, titleNameBoost: 0 } }));
  });

  it("lets the docs' own code compete with the source when the title is about the docs, and only then", async () => {
    const docsFiles = [
      { path: "doc/conf.py", text: "html_theme = 'alabaster'\nhtml_sidebars = {'**': ['versions.html', 'searchbox.html']}\n" },
      { path: "pkg/builders/nav.py", text: "def write_menu(theme):\n    return theme.render('menu', sidebars=True)  # versions\n" },
      { path: "doc/usage.rst", text: "Sidebars: the versions menu and the searchbox, html_sidebars in conf.py\n" },
      { path: "doc/en/example/sidebars.py", text: "html_sidebars = {'index': ['versions.html']}  # a menu example\n" },
    ];
    const aboutDocs = await rankFiles(docsFiles, issue("Versions menu missing from the docs sidebars", "html_sidebars versions searchbox"), 4);
    const aboutCode = await rankFiles(docsFiles, issue("Versions menu missing from the sidebars", "html_sidebars versions searchbox"), 4);
    const score = (ranked: Array<{ path: string; score: number }>, path: string) => ranked.find((f) => f.path === path)!.score;
    // The title's "docs" adds a word no file has: the scores differ by the docs' prior alone.
    expect(score(aboutDocs, "doc/conf.py") / score(aboutCode, "doc/conf.py")).toBeCloseTo(1 / 0.6, 1);
    expect(score(aboutDocs, "pkg/builders/nav.py")).toBe(score(aboutCode, "pkg/builders/nav.py"));
    // Prose pages under doc/ stay demoted: the fix is in code either way.
    expect(score(aboutDocs, "doc/usage.rst")).toBe(score(aboutCode, "doc/usage.rst"));
    // So do the examples the docs hold: code, but an example's, not the docs' own.
    expect(score(aboutDocs, "doc/en/example/sidebars.py")).toBe(score(aboutCode, "doc/en/example/sidebars.py"));
  });
});

describe("rankFiles and imports", () => {
  // The issue's words find dataset.py; the fix is one call deeper, in one of two files sharing as many words.
  const files = [
    {
      path: "pkg/dataset.py",
      text: "from .variable import Variable\n\nclass Dataset:\n    def update(self, other):\n        return Variable.chunk(other)  # update chunk update\n",
    },
    { path: "pkg/variable.py", text: "class Variable:\n    def chunk(self, data):\n        return data\n" },
    { path: "pkg/array.py", text: "class Array:\n    def chunk(self, data):\n        return data\n" },
    { path: "pkg/misc.py", text: "from .array import Array\n# chunk\n" },
  ];
  const query = issue("Dataset update evaluates chunked data", "update on a chunked dataset calls chunk");

  it("raises a file the best-ranked files import above one that shares the same words", async () => {
    const still = await rankFiles(files, query, 4, { ranking: { ...DEFAULT_RANK_OPTIONS, importBoost: 0 } });
    const raised = await rankFiles(files, query, 4);
    expect(still[0]!.path).toBe("pkg/dataset.py");
    expect(still.find((f) => f.path === "pkg/variable.py")!.score).toBe(still.find((f) => f.path === "pkg/array.py")!.score);
    expect(raised.map((f) => f.path).slice(0, 3)).toEqual(["pkg/dataset.py", "pkg/variable.py", "pkg/array.py"]);
    // By 1 + importBoost × the importer's score relative to the best (here the best itself).
    expect(raised.find((f) => f.path === "pkg/variable.py")!.score).toBeCloseTo(
      still.find((f) => f.path === "pkg/variable.py")!.score * (1 + DEFAULT_RANK_OPTIONS.importBoost),
      2,
    );
    // misc.py imports array.py too, but it ranks fourth, past the few whose imports count.
    expect(raised[3]!.path).toBe("pkg/misc.py");
    expect(raised.find((f) => f.path === "pkg/array.py")!.score).toBe(still.find((f) => f.path === "pkg/array.py")!.score);
  });

  it("gives as its best few what the whole ranking gives first, a file raised from further down included", async () => {
    // Files sharing more words than variable.py, which dataset.py imports: raised strongly, it climbs past them.
    const fillers = Array.from({ length: 6 }, (_, i) => ({ path: `pkg/part${i}.py`, text: "# chunked data, chunk update\n" }));
    const many = [...files, ...fillers];
    const options = { ...DEFAULT_RANK_OPTIONS, importBoost: 2 };
    const still = (await rankFiles(many, query, 100, { ranking: { ...options, importBoost: 0 } })).map((f) => f.path);
    const whole = await rankFiles(many, query, 100, { ranking: options });
    expect(still.indexOf("pkg/variable.py")).toBe(8);
    expect(whole.findIndex((f) => f.path === "pkg/variable.py")).toBe(1);
    for (const top of [1, 2, 3, 4, 6]) expect(await rankFiles(many, query, top, { ranking: options })).toEqual(whole.slice(0, top));
  });

  it("adds up what each best-ranked importer gives a file", async () => {
    const merge = { path: "pkg/merge.py", text: "from .variable import Variable\n\ndef update_merge(other):\n    return Variable.chunk(other)  # update\n" };
    const both = [...files.slice(0, 3), merge];
    const still = await rankFiles(both, query, 4, { ranking: { ...DEFAULT_RANK_OPTIONS, importBoost: 0 } });
    const raised = await rankFiles(both, query, 4);
    const score = (ranked: Array<{ path: string; score: number }>, path: string) => ranked.find((f) => f.path === path)!.score;
    const seeds = still.slice(0, 3).map((f) => f.path);
    expect(seeds).toEqual(expect.arrayContaining(["pkg/dataset.py", "pkg/merge.py"]));
    const importers = score(still, "pkg/dataset.py") + score(still, "pkg/merge.py");
    expect(score(raised, "pkg/variable.py")).toBeCloseTo(
      score(still, "pkg/variable.py") * (1 + (DEFAULT_RANK_OPTIONS.importBoost * importers) / still[0]!.score),
      2,
    );
  });
});

describe("pathTerms", () => {
  it("gives folders and the file name whole and split, but not the extension alone", () => {
    expect(pathTerms("astropy/io/ascii/rst.py")).toEqual(["astropy", "io", "ascii", "rst.py", "rst"]);
    expect(pathTerms("docs/index.rst")).toEqual(["docs", "index.rst", "index"]);
    expect(pathTerms("src/flask/json/tag.py")).not.toContain("py");
  });
});

describe("query weights", () => {
  it("count a term as many times as its weight says, summed over the terms", async () => {
    const files = [
      { path: "requests/sessions.py", text: sessions },
      { path: "requests/models.py", text: models },
      { path: "README.md", text: readme },
      {
        path: "requests/adapters.py",
        text: "class HTTPAdapter:\n    def send(self, request, stream=False, verify=True):\n        return self.build_response(request)\n",
      },
    ];
    const index = await indexFiles(files);
    const scoreOf = async (terms: Array<[string, number]>, path: string) =>
      (await index.rank({ terms: new Map(terms), mentions: [], symbols: [], titleWords: new Set(), aboutDocs: false }, 10)).find((f) => f.path === path)
        ?.score ?? 0;
    // Weight 0.5 counts once; 1 twice; 1.5 three times.
    for (const path of ["requests/sessions.py", "requests/models.py", "requests/adapters.py"]) {
      const once = (term: string) => scoreOf([[term, 0.5]], path);
      const expected = 2 * (await once("verify")) + 3 * (await once("session")) + 1 * (await once("chunk_size"));
      expect(
        await scoreOf(
          [
            ["verify", 1],
            ["session", 1.5],
            ["chunk_size", 0.5],
          ],
          path,
        ),
      ).toBeCloseTo(expected, 2);
    }
  });

  it("lets the event loop run while it indexes and ranks, and ranks the same as in one piece", async () => {
    const files = Array.from({ length: 30 }, (_, i) => ({ path: `pkg/mod${i}.py`, text: `def handler_${i}(request):\n    return verify_${i % 3}(request)\n` }));
    const order: string[] = [];
    // A webhook arriving meanwhile: it must not wait for the whole index (slices of 0 ms yield at every step).
    setImmediate(() => order.push("other work"));
    const index = await Promise.resolve(indexFiles(files, { ranking: DEFAULT_RANK_OPTIONS, pause: sliceWork(0) })).then((built) => {
      order.push("indexed");
      return built;
    });
    expect(order).toEqual(["other work", "indexed"]);
    const query = issue("verify_1 fails in handler_4");
    setImmediate(() => order.push("more work"));
    const ranked = await index.rank(query, 5);
    order.push("ranked");
    expect(order).toEqual(["other work", "indexed", "more work", "ranked"]);
    expect(ranked).toEqual(await (await indexFiles(files, { ranking: DEFAULT_RANK_OPTIONS, pause: () => undefined })).rank(query, 5));
  });
});

describe("prepareFile", () => {
  it("counts each term of the whole file", () => {
    const text = `${"alpha ".repeat(5)}\n${"beta ".repeat(200)}\ngamma\n`;
    const [whole] = prepareFile({ path: "pkg/mod.py", text }, Infinity).text;
    expect(Object.fromEntries(whole!)).toEqual({ alpha: 5, beta: 200, gamma: 1 });
  });

  it("gives the path and the defined names as a document of their own", () => {
    const prepared = prepareFile({ path: "requests/sessions.py", text: sessions }, Infinity);
    expect(prepared.names.path).toEqual(["request", "sessions.py", "session"]);
    expect(prepared.names.defs).toEqual(["session", "merge_environment_setting", "merge", "environment", "setting"]);
  });
});

describe("rankFiles with the definition index", () => {
  const uses = (i: number) =>
    `from .rst import RST\n\ndef get_writer_${i}(writer, header_rows):\n    # RST writers, RST headers, header rows of RST tables\n    return RST(header_rows=header_rows) if writer == "rst" else RST()\n`;
  const files = [
    { path: "pkg/ascii/core.py", text: Array.from({ length: 6 }, (_, i) => uses(i)).join("\n") },
    { path: "pkg/ascii/ui.py", text: uses(9) },
    {
      path: "pkg/ascii/restructured.py",
      text: "class RST(FixedWidth):\n    def __init__(self):\n        super().__init__(delimiter_pad=None)\n\n    def write(self, lines):\n        return lines\n",
    },
    { path: "pkg/ascii/fixed.py", text: "class FixedWidth:\n    def __init__(self, header_rows=None):\n        self.header_rows = header_rows\n" },
  ];
  const query = issue("Support header rows in RST output", "TypeError: RST.__init__() got an unexpected keyword argument 'header_rows'");

  it("multiplies the score of the file defining what the issue names, capped, and leaves the files using it alone", async () => {
    const without = new Map((await rankFiles(files, query, 4, { ranking: { ...DEFAULT_RANK_OPTIONS, definitionBoost: 0 } })).map((f) => [f.path, f.score]));
    const ranked = await rankFiles(files, query, 4);
    const score = (path: string) => ranked.find((f) => f.path === path)!.score;
    // RST (class, strength 2: 4) and RST.__init__ (qualified, strength 2: 6) make 10, capped at 4: × (1 + 0.5 × 4).
    expect(score("pkg/ascii/restructured.py") / without.get("pkg/ascii/restructured.py")!).toBeCloseTo(3, 2);
    expect(score("pkg/ascii/core.py")).toBe(without.get("pkg/ascii/core.py"));
    expect(score("pkg/ascii/ui.py")).toBe(without.get("pkg/ascii/ui.py"));
    // fixed.py defines an __init__, but not RST's: `__init__` alone, defined in two files, is worth 1 × 2 / 2.
    expect(score("pkg/ascii/fixed.py") / without.get("pkg/ascii/fixed.py")!).toBeCloseTo(1.5, 2);
    expect(ranked[0]!.path).toBe("pkg/ascii/restructured.py");
  });

  it("finds a method named with its class in the class's file, not in another class's file defining the same method", async () => {
    const two = [
      {
        path: "pkg/variable.py",
        text: "class Variable:\n    def update(self, other):\n        '''update the dataset values in place'''\n        return merge(self, other)\n",
      },
      { path: "pkg/dataset.py", text: "class Dataset:\n    def update(self, other):\n        return other\n" },
      { path: "pkg/other.py", text: "def unrelated(): pass\n" },
    ];
    const dotted = issue("`Dataset.update` loses chunks");
    expect((await rankFiles(two, dotted, 3))[0]!.path).toBe("pkg/dataset.py");
    expect((await rankFiles(two, issue("`Variable.update` loses chunks"), 3))[0]!.path).toBe("pkg/variable.py");
  });

  it("finds the Java method and the C function an issue names in the file defining it, as in Python", async () => {
    const java = [
      { path: "src/main/java/p/Foo.java", text: "package p;\npublic class Foo extends Bar {\n  public int compute(int x) {\n    return x;\n  }\n}\n" },
      {
        path: "src/main/java/p/User.java",
        text: "package p;\npublic class User {\n  int go() { Foo foo = new Foo(); return foo.compute(1) + new Foo().compute(2); }\n}\n",
      },
    ];
    const javaIndex = await indexFiles(java);
    expect((await javaIndex.rank(issue("`Foo.compute` returns the wrong value"), 2))[0]!.path).toBe("src/main/java/p/Foo.java");
    expect(javaIndex.stats.parsed).toBe(1);
    const caller = (i: number) =>
      `int handle_${i}(const char *buf) {\n  /* parse_header on each line */\n  int n = parse_header(buf);\n  return parse_header(buf + n);\n}\n`;
    const c = [
      { path: "src/http.c", text: `int parse_header(const char *s)\n{\n  return strlen(s);\n}\n${"int other(void) { return 1; }\n".repeat(30)}` },
      { path: "src/server.c", text: caller(1) + caller(2) },
    ];
    expect((await rankFiles(c, issue("`parse_header` miscounts folded lines"), 2))[0]!.path).toBe("src/http.c");
    // Rust's `Type::method`, in an impl block of a file other than the type's: after the type's own file, and
    // above the file defining the same method for another type, however much more that one speaks of sockets.
    const rust = [
      {
        path: "src/server.rs",
        text: "pub struct Server {\n    socket: Socket,\n}\nimpl Server {\n    pub fn new(socket: Socket) -> Self { Server { socket } }\n}\n",
      },
      { path: "src/server/shutdown.rs", text: "use super::Server;\nimpl Server {\n    pub fn close(&mut self) {}\n}\n" },
      {
        path: "src/pool.rs",
        text: "pub struct Pool;\nimpl Pool {\n    /// Closes every socket of the pool: a socket left open leaks, and leaks of sockets add up.\n    pub fn close(&mut self) {}\n}\n",
      },
    ];
    const ranked = (await rankFiles(rust, issue("`Server::close` leaks the socket"), 3)).map((file) => file.path);
    expect(ranked).toEqual(["src/server.rs", "src/server/shutdown.rs", "src/pool.rs"]);
  });

  it("parses only the files the fast pass says define a named symbol", async () => {
    const index = await indexFiles(files);
    await index.rank(query, 4);
    // restructured.py defines RST (and __init__ with fixed.py); core.py and ui.py only use the names.
    expect(index.stats.parsed).toBe(2);
    await index.rank(issue("no names here"), 4);
    expect(index.stats.parsed).toBe(2);
  });
});

describe("each weight of the ranking", () => {
  const scoreOf = async (
    files: Array<{ path: string; text: string }>,
    query: ReturnType<typeof issue>,
    path: string,
    options: Partial<typeof DEFAULT_RANK_OPTIONS> = {},
  ) => (await rankFiles(files, query, files.length, { ranking: { ...DEFAULT_RANK_OPTIONS, ...options } })).find((f) => f.path === path)?.score ?? 0;
  const parser = { path: "pkg/parse.py", text: "import re\n\nWORDS = re.compile('[a-z]+')\n" };
  const definer = { path: "pkg/tools.py", text: "def parse(text):\n    return text.split()\n" };
  const other = { path: "pkg/other.py", text: "def unrelated():\n    return 1\n" };
  const files = [parser, definer, other];
  const parse = issue("parse words");

  it("mentionBoost multiplies a named file's score by 1 + the boost × how strongly the issue names it", async () => {
    // `pkg/parse.py` named with its folder in prose: two trailing parts agree, at a prose path's strength 2: 4.
    const named = issue("parse words", "The pattern in pkg/parse.py misses digits.");
    const plain = await scoreOf(files, named, parser.path, { mentionBoost: 0 });
    expect((await scoreOf(files, named, parser.path, { mentionBoost: 0.2 })) / plain).toBeCloseTo(1.8, 2);
    expect((await scoreOf(files, named, parser.path, { mentionBoost: 0.5 })) / plain).toBeCloseTo(3, 2);
    expect(await scoreOf(files, named, definer.path, { mentionBoost: 0.5 })).toBe(await scoreOf(files, named, definer.path, { mentionBoost: 0 }));
  });

  it("namesShare adds the path-and-names score in proportion, and at 0 leaves the text alone", async () => {
    const none = await scoreOf(files, parse, parser.path, { namesShare: 0 });
    const one = await scoreOf(files, parse, parser.path, { namesShare: 1 });
    const two = await scoreOf(files, parse, parser.path, { namesShare: 2 });
    expect(one).toBeGreaterThan(none);
    expect(two - none).toBeCloseTo(2 * (one - none), 2);
  });

  it("pathWeight and defsWeight decide between the file named like the issue's word and the one defining it", async () => {
    const ranked = async (pathWeight: number, defsWeight: number) =>
      (await rankFiles(files, parse, 2, { ranking: { ...DEFAULT_RANK_OPTIONS, pathWeight, defsWeight, definitionBoost: 0 } }))[0]!.path;
    expect(await ranked(3, 0)).toBe(parser.path);
    expect(await ranked(0, 3)).toBe(definer.path);
    // With neither, the names add nothing: the same scores as without the names at all.
    expect(await scoreOf(files, parse, parser.path, { pathWeight: 0, defsWeight: 0 })).toBe(await scoreOf(files, parse, parser.path, { namesShare: 0 }));
  });

  it("looks up a named symbol only where at most ten files define it, and parses at most a hundred files a query", async () => {
    const definers = (name: string, count: number) =>
      Array.from({ length: count }, (_, i) => ({ path: `pkg/${name}_${i}.py`, text: `def ${name}(value):\n    return value\n` }));
    const ten = await indexFiles(definers("update_rows", 10));
    await ten.rank(issue("`update_rows` loses data"), 5);
    expect(ten.stats.parsed).toBe(10);
    const eleven = await indexFiles(definers("update_rows", 11));
    await eleven.rank(issue("`update_rows` loses data"), 5);
    expect(eleven.stats.parsed).toBe(0);
    const names = Array.from({ length: 11 }, (_, i) => `merge_${i}`);
    const many = await indexFiles(names.flatMap((name) => definers(name, 10)));
    await many.rank(issue(names.map((name) => `\`${name}\``).join(" ")), 5);
    expect(many.stats.parsed).toBe(100);
  });
});
