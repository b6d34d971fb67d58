import { describe, expect, it } from "vitest";
import { buildQuery } from "../../../src/pipeline/locate/build-query.js";
import { mentionStrength, namedByTitle } from "../../../src/pipeline/locate/score-path.js";

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

describe("mentionStrength", () => {
  const mentions = (body: string) => buildQuery({ title: "", body, hints: [] }).mentions;

  it("counts the trailing components a file path and a module name agree on, times the mention's strength", () => {
    const named = mentions("It fails in requests/utils.py");
    expect(mentionStrength("requests/utils.py", named)).toBe(2 * named[0]!.strength);
    expect(mentionStrength("pkg/utils.py", named)).toBe(named[0]!.strength);
    expect(mentionStrength("requests/models.py", named)).toBe(0);
  });

  it("reads a module name as the file without its extension, a class or function at its end, and a package as its __init__", () => {
    const named = mentions("See xarray.core.merge.merge_core and then sphinx.ext.autodoc");
    expect(mentionStrength("xarray/core/merge.py", named)).toBeGreaterThan(0);
    expect(mentionStrength("sphinx/ext/autodoc/__init__.py", named)).toBeGreaterThan(0);
    // One trailing component is not enough for a module name: `merge.py` elsewhere is not meant.
    expect(mentionStrength("other/merge.py", named)).toBe(0);
    expect(mentionStrength("xarray/core/dataset.py", named)).toBe(0);
  });
});
