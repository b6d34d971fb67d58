import { describe, expect, it } from "vitest";
import { buildQuery } from "../../../src/pipeline/locate/build-query.js";
import { namedByTitle } from "../../../src/pipeline/locate/score-path.js";

describe("namedByTitle", () => {
  const words = (title: string) => buildQuery({ title, body: "", hints: [] }).titleWords;

  it("says a file is named when its name without the extension is a word of the title", () => {
    expect(namedByTitle("xarray/core/groupby.py", words("groupby drops attrs"))).toBe(true);
    expect(namedByTitle("sphinx/writers/latex.py", words("LaTeX writer drops captions"))).toBe(true);
    expect(namedByTitle("xarray/core/dataset.py", words("groupby drops attrs"))).toBe(false);
  });

  it("does not count names every project has, nor names shorter than four letters", () => {
    for (const path of ["pkg/utils.py", "pkg/core.py", "pkg/base.py", "pkg/main.py", "web/index.ts", "pkg/__init__.py", "pkg/types.py"]) {
      expect(namedByTitle(path, words("utils core base main index __init__ types are broken"))).toBe(false);
    }
    expect(namedByTitle("pkg/io.py", words("io fails on empty files"))).toBe(false);
    expect(namedByTitle("pkg/json.py", words("json fails on empty files"))).toBe(true);
  });
});
