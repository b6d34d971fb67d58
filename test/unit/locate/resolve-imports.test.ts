import { describe, expect, it } from "vitest";
import { importedFiles, indexModules } from "../../../src/pipeline/locate/resolve-imports.js";

const repository = [
  "src/_pytest/main.py",
  "src/_pytest/nodes.py",
  "src/_pytest/config/__init__.py",
  "src/_pytest/config/argparsing.py",
  "src/_pytest/mark/structures.py",
  "xarray/core/dataset.py",
  "xarray/core/variable.py",
  "xarray/core/utils.py",
  "xarray/__init__.py",
  "web/src/app.ts",
  "web/src/routes/index.ts",
  "web/src/db.js",
  "web/src/view.tsx",
];
const index = indexModules(repository);
const imports = (file: string, text: string) => [...importedFiles(file, text, index)].sort();

describe("importedFiles", () => {
  it("resolves absolute Python imports by the full dotted path, or without a src/ folder", () => {
    const text = "import os\nimport xarray.core.variable as variable, numpy\nfrom _pytest.nodes import Node\n";
    expect(imports("src/_pytest/main.py", text)).toEqual(["src/_pytest/nodes.py", "xarray/core/variable.py"]);
  });

  it("resolves relative imports from the file's package, and names imported from a package that are its modules", () => {
    const text = "from . import utils\nfrom .variable import Variable\nfrom .. import core\n";
    expect(imports("xarray/core/dataset.py", text)).toEqual(["xarray/__init__.py", "xarray/core/utils.py", "xarray/core/variable.py"]);
    expect(imports("src/_pytest/main.py", "from .config import argparsing\nfrom .mark.structures import Mark\n")).toEqual([
      "src/_pytest/config/__init__.py",
      "src/_pytest/config/argparsing.py",
      "src/_pytest/mark/structures.py",
    ]);
  });

  it("resolves a relative import only where it points, never to a module of the same name elsewhere nor past the root", () => {
    const tree = indexModules(["setup.py", "utils.py", "pkg/__init__.py", "pkg/mod.py", "pkg/utils.py", "tests/utils.py", "src/pkg/mod.py"]);
    const relative = (file: string, text: string) => [...importedFiles(file, text, tree)].sort();
    // At the top level the package is the root: `utils.py`, not every folder's `utils.py`.
    expect(relative("setup.py", "from . import utils\n")).toEqual(["utils.py"]);
    // In a package's `__init__.py`, `.` is that package.
    expect(relative("pkg/__init__.py", "from . import mod\nfrom .utils import helper\n")).toEqual(["pkg/mod.py", "pkg/utils.py"]);
    expect(relative("pkg/mod.py", "from .. import utils\n")).toEqual(["utils.py"]);
    // Three dots from pkg/ would leave the repository: Python refuses it, and it names no file here.
    expect(relative("pkg/mod.py", "from ... import utils\nfrom ...pkg import mod\n")).toEqual([]);
    // An absolute import may still mean a folder's package without its first folder (`src/`).
    expect(relative("setup.py", "import pkg.mod\n")).toEqual(["pkg/mod.py", "src/pkg/mod.py"]);
  });

  it("reads parenthesized lists across lines, continued lines, and imports inside functions", () => {
    const text = [
      "from xarray.core import (",
      "    utils,  # helpers",
      "    variable,",
      ")",
      "def lazy():",
      "    from _pytest.config import \\",
      "        argparsing",
    ].join("\n");
    expect(imports("src/_pytest/main.py", text)).toEqual([
      "src/_pytest/config/__init__.py",
      "src/_pytest/config/argparsing.py",
      "xarray/core/utils.py",
      "xarray/core/variable.py",
    ]);
  });

  it("resolves relative imports and requires of scripts with the extensions and index files a bundler tries", () => {
    const text = [
      'import { open } from "./db.js";',
      'export { routes } from "./routes";',
      'const View = require("./view");',
      'const lazy = await import("./routes/index.ts");',
      'import express from "express";',
      'import "./missing";',
    ].join("\n");
    expect(imports("web/src/app.ts", text)).toEqual(["web/src/db.js", "web/src/routes/index.ts", "web/src/view.tsx"]);
    // TypeScript names the file its import compiles to: `../view.js` is view.tsx, `./app.mjs` app.ts.
    expect(imports("web/src/routes/index.ts", 'import { View } from "../view.js";\nexport * from "../app.mjs";\n')).toEqual([
      "web/src/app.ts",
      "web/src/view.tsx",
    ]);
    expect(imports("web/src/db.js", 'import { app } from "./app.js";\n')).toEqual(["web/src/app.ts"]);
  });

  it("reads files as large as max_file_bytes (512 KB) of unclosed lists, continued lines, runs of dots or spaces in linear time", () => {
    // Each was quadratic in the length of its run: seconds to minutes. Linear code reads each in milliseconds.
    const cases: Array<[file: string, text: string, imported: string[]]> = [
      ["src/_pytest/a.py", `from xarray.core import utils\n${"from xarray.core import (\n".repeat(32_000)}`, ["xarray/core/utils.py"]],
      ["src/_pytest/b.py", `from xarray.core import utils\n${"from xarray.core import \\\n".repeat(32_000)}`, ["xarray/core/utils.py"]],
      ["src/_pytest/c.py", `from . import nodes\nfrom ${".".repeat(100_000)}`, ["src/_pytest/nodes.py"]],
      ["web/src/d.ts", `import "./db.js";\nimport${" ".repeat(100_000)}x`, ["web/src/db.js"]],
    ];
    for (const [file, text, imported] of cases) {
      const started = performance.now();
      expect(imports(file, text)).toEqual(imported);
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });

  it("gives nothing for other packages, itself, or other languages", () => {
    expect(imports("xarray/core/dataset.py", "import numpy as np\nfrom pandas import Index\nfrom .dataset import Dataset\n")).toEqual([]);
    expect(imports("README.md", "from xarray.core import utils\n")).toEqual([]);
  });
});
