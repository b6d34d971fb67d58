import { describe, expect, it } from "vitest";
import { buildQuery } from "../../../src/pipeline/locate/build-query.js";
import { pathTerms, prepareFile } from "../../../src/pipeline/locate/prepare-document.js";
import { DEFAULT_RANK_OPTIONS, indexFiles, rankFiles } from "../../../src/pipeline/locate/rank-files.js";
import { sliceWork } from "../../../src/slice-work.js";

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
    expect((await rankFiles([{ path: "a.py", text: models }, { path: "b.py", text: sessions }], issue("iter_content"), 10))[0]!.path).toBe("a.py");
  });

  it("returns nothing for no files or a query without words", async () => {
    expect(await rankFiles([], issue("anything"), 10)).toEqual([]);
    expect(await rankFiles([{ path: "a.py", text: models }], issue(""), 10)).toEqual([]);
  });

  it("leaves out files that share no term with the issue", async () => {
    const ranked = await rankFiles([{ path: "a.py", text: models }, { path: "b.py", text: sessions }, { path: "c.py", text: "x = 1\n" }], issue("iter_content"), 10);
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
    const ranked = await rankFiles([{ path: "pkg/rolling.py", text: long }, { path: "pkg/note.py", text: short }, ...others], issue("coarsen_reduce raises KeyError in coarsen"), 5);
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
      [{ path: "tests/test_header.py", text: `${text}\ndef test_parse_header():\n    assert parse_header('a: b')\n` }, { path: "pkg/header.py", text }, { path: "pkg/x.py", text: "y = 2\n" }],
      issue("parse_header splits on every colon"),
      3,
    );
    expect(ranked.map((f) => f.path)).toEqual(["pkg/header.py", "tests/test_header.py"]);
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
      { path: "requests/adapters.py", text: "class HTTPAdapter:\n    def send(self, request, stream=False, verify=True):\n        return self.build_response(request)\n" },
    ];
    const index = await indexFiles(files);
    const scoreOf = async (terms: Array<[string, number]>, path: string) =>
      (await index.rank({ terms: new Map(terms), mentions: [], symbols: [] }, 10)).find((f) => f.path === path)?.score ?? 0;
    // Weight 0.5 counts once; 1 twice; 1.5 three times.
    for (const path of ["requests/sessions.py", "requests/models.py", "requests/adapters.py"]) {
      const once = (term: string) => scoreOf([[term, 0.5]], path);
      const expected = 2 * (await once("verify")) + 3 * (await once("session")) + 1 * (await once("chunk_size"));
      expect(await scoreOf([["verify", 1], ["session", 1.5], ["chunk_size", 0.5]], path)).toBeCloseTo(expected, 2);
    }
  });

  it("lets the event loop run while it indexes and ranks, and ranks the same as in one piece", async () => {
    const files = Array.from({ length: 30 }, (_, i) => ({ path: `pkg/mod${i}.py`, text: `def handler_${i}(request):\n    return verify_${i % 3}(request)\n` }));
    const order: string[] = [];
    // A webhook arriving meanwhile: it must not wait for the whole index (slices of 0 ms yield at every step).
    setImmediate(() => order.push("other work"));
    const index = await Promise.resolve(indexFiles(files, DEFAULT_RANK_OPTIONS, sliceWork(0))).then((built) => {
      order.push("indexed");
      return built;
    });
    expect(order).toEqual(["other work", "indexed"]);
    const query = issue("verify_1 fails in handler_4");
    setImmediate(() => order.push("more work"));
    const ranked = await index.rank(query, 5);
    order.push("ranked");
    expect(order).toEqual(["other work", "indexed", "more work", "ranked"]);
    expect(ranked).toEqual(await (await indexFiles(files, DEFAULT_RANK_OPTIONS, () => undefined)).rank(query, 5));
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
    { path: "pkg/ascii/restructured.py", text: "class RST(FixedWidth):\n    def __init__(self):\n        super().__init__(delimiter_pad=None)\n\n    def write(self, lines):\n        return lines\n" },
    { path: "pkg/ascii/fixed.py", text: "class FixedWidth:\n    def __init__(self, header_rows=None):\n        self.header_rows = header_rows\n" },
  ];
  const query = issue("Support header rows in RST output", "TypeError: RST.__init__() got an unexpected keyword argument 'header_rows'");

  it("multiplies the score of the file defining what the issue names, capped, and leaves the files using it alone", async () => {
    const without = new Map((await rankFiles(files, query, 4, { ...DEFAULT_RANK_OPTIONS, definitionBoost: 0 })).map((f) => [f.path, f.score]));
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
      { path: "pkg/variable.py", text: "class Variable:\n    def update(self, other):\n        '''update the dataset values in place'''\n        return merge(self, other)\n" },
      { path: "pkg/dataset.py", text: "class Dataset:\n    def update(self, other):\n        return other\n" },
      { path: "pkg/other.py", text: "def unrelated(): pass\n" },
    ];
    const dotted = issue("`Dataset.update` loses chunks");
    expect((await rankFiles(two, dotted, 3))[0]!.path).toBe("pkg/dataset.py");
    expect((await rankFiles(two, issue("`Variable.update` loses chunks"), 3))[0]!.path).toBe("pkg/variable.py");
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
