import { describe, expect, it } from "vitest";
import { countTerms, countTermsByChunk, hyphenatedNames, tokenizeCode } from "../../../src/pipeline/locate/tokenize-code.js";

describe("tokenizeCode", () => {
  it("keeps a camelCase identifier whole and splits it, acronyms included", () => {
    expect(tokenizeCode("parseHTTPResponse")).toEqual(["parsehttpresponse", "parse", "http", "response"]);
  });

  it("splits PascalCase and snake_case, and strips dunder underscores", () => {
    expect(tokenizeCode("DataArrayCoarsen")).toEqual(["dataarraycoarsen", "data", "array", "coarsen"]);
    expect(tokenizeCode("merge_environment_settings")).toEqual(["merge_environment_setting", "merge", "environment", "setting"]);
    expect(tokenizeCode("__init__")).toEqual(["init"]);
  });

  it("keeps a dotted module name whole and gives its parts", () => {
    expect(tokenizeCode("from xarray.core.variable import Variable")).toEqual(["xarray.core.variable", "xarray", "core", "variable", "variable"]);
  });

  it("does not index self./this. chains as names, only their attributes", () => {
    expect(tokenizeCode("self.headers = this.cookieJar")).toEqual(["header", "cookiejar", "cookie", "jar"]);
  });

  it("drops stop words, language keywords and one-letter names", () => {
    expect(tokenizeCode("def f(x): return None if x is not the value else True")).toEqual(["value"]);
  });

  it("folds plurals so 'Sessions' meets 'session', but leaves 'class' and 'status' alone", () => {
    expect(tokenizeCode("Sessions class status")).toEqual(["session", "class", "status"]);
  });

  it("joins a hyphenated name as code does, so an option or message meets the code that reads it", () => {
    const issue = tokenizeCode("pylint --ignore-paths=tests gives W0108 (Unnecessary-Lambda) at sphinx-doc.org");
    expect(issue).toEqual(expect.arrayContaining(["ignore", "path", "ignore_path", "unnecessary", "unnecessary_lambda", "sphinx_doc"]));
    const code = tokenizeCode("paths = self.linter.config.ignore_paths");
    expect(code).toContain("ignore_path");
  });

  it("takes a hyphenated name whole, never a part of a longer one, nor subtractions of one-letter names", () => {
    expect(tokenizeCode("use-the-force now").filter((t) => t.includes("_"))).toEqual(["use_the_force"]);
    expect(tokenizeCode("n-k x-1 a - b ab_cd-ef").filter((t) => t.includes("_"))).toEqual(["ab_cd"]);
    // A name starting or ending with a one-letter or numeric part is whole too: none of its parts is taken.
    expect(tokenizeCode("x-ray-tube ab-cd-e utf-8-sig").filter((t) => t.includes("_"))).toEqual([]);
  });

  it("finds the hyphenated names the whole-text pattern finds, where it finds them, at the text's edges and beside any character", () => {
    // The pattern the scan stands for, run over the whole text: a name not inside a longer run of word characters and hyphens.
    const whole = /(?<!\w|\w-)[A-Za-z][A-Za-z0-9]+(?:-[A-Za-z][A-Za-z0-9]+)+(?!\w|-\w)/g;
    const texts = [
      "ab-cd",
      "-ab-cd-",
      "--ab-cd",
      "ab-cd--",
      "x ab-cd y",
      "_ab-cd",
      "ab-cd_",
      "1ab-cd",
      "ab-cd1 ab-1c",
      "a-b ab-c ab-cd-e",
      "é-ab-cd é",
      "éab-cd",
      "ab-cdé",
      "ab-cd.ef-gh",
      "ab-cd\nef-gh",
      "ab--cd",
      "ab-cd-ef-gh ij-kl",
      "x-ray-tube utf-8-sig sphinx-doc",
      "--ignore-paths=tests (Unnecessary-Lambda) at sphinx-doc.org",
      "n-k x-1 a - b",
      "ab-cd-e-fg",
      "ab-cd ef-gh-ij-k",
      "A9-Z9",
      "-",
      "",
    ];
    for (const text of texts) {
      expect(hyphenatedNames(text), text).toEqual([...text.matchAll(whole)].map((match) => ({ name: match[0], index: match.index })));
    }
  });

  it("reads a Python traceback into file, module and function terms", () => {
    const tokens = tokenizeCode(`Traceback (most recent call last):
  File "/usr/lib/python3/site-packages/requests/sessions.py", line 465, in request
    resp = self.send(prep, **send_kwargs)
TypeError: unsupported operand`);
    expect(tokens).toEqual(expect.arrayContaining(["sessions.py", "session", "request", "send_kwarg", "send", "typeerror", "type", "error", "unsupported"]));
  });
});

describe("countTermsByChunk", () => {
  it("counts each run of lines' terms on its own", () => {
    const text = ["alpha = beta", "beta = 2", "gamma = alpha", "delta = 4", "epsilon = 5"].join("\n");
    expect(countTermsByChunk(text, 2).map((m) => Object.fromEntries(m))).toEqual([{ alpha: 1, beta: 2 }, { gamma: 1, alpha: 1, delta: 1 }, { epsilon: 1 }]);
    expect(Object.fromEntries(countTermsByChunk(text, Infinity)[0]!)).toEqual({ alpha: 2, beta: 2, gamma: 1, delta: 1, epsilon: 1 });
  });

  it("counts a hyphenated name in the chunk of the line it is on", () => {
    const text = ["alpha", "opts = ['ignore-paths']", "beta", "gamma"].join("\n");
    expect(countTermsByChunk(text, 2).map((m) => m.get("ignore_path") ?? 0)).toEqual([1, 0]);
  });

  it("gives one empty chunk for a text without words", () => {
    expect(countTermsByChunk("", 10)).toEqual([new Map()]);
    expect(countTermsByChunk("123 + 456", 10)).toEqual([new Map()]);
  });
});

describe("countTerms", () => {
  it("counts exactly the terms tokenizeCode gives", () => {
    const text = `import os.path
from requests.sessions import Session, merge_setting
# --pool-size and pool-size are the same option

class HTTPAdapter(BaseAdapter):
    def send(self, request, stream=False, verify=True):
        session = Session()
        session.mount("https://", self)
        return os.path.join(request.url, merge_setting(verify, session.verify))
`;
    const tally = new Map<string, number>();
    for (const term of tokenizeCode(text)) tally.set(term, (tally.get(term) ?? 0) + 1);
    expect(countTerms(text)).toEqual(tally);
    expect(countTermsByChunk(text, Infinity)).toEqual([tally]);
    expect(countTerms("")).toEqual(new Map());
  });
});
