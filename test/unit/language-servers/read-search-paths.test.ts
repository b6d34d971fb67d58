import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readSearchPaths } from "../../../src/pipeline/tests/ask-search-paths.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A checkout with a `src` folder, and a hostPath as a workbench's: /workspace and /tmp/home to the kept copies. */
function setting() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-search-paths-"));
  dirs.push(root);
  fs.mkdirSync(path.join(root, "src"));
  const hostPath = (inside: string) =>
    inside === "/workspace" || inside.startsWith("/workspace/")
      ? `/kept/set-up${inside.slice("/workspace".length)}`
      : inside === "/tmp/home" || inside.startsWith("/tmp/home/")
        ? `/kept/home${inside.slice("/tmp/home".length)}`
        : null;
  return { root, hostPath };
}

const PYTHON = [
  "",
  "/usr/lib/python311.zip",
  "/usr/lib/python3.11",
  "/usr/lib/python3.11/lib-dynload",
  "/workspace/.venv/lib/python3.11/site-packages",
  "/workspace/src",
  "/tmp/home/.local/lib/python3.11/site-packages",
  "/usr/lib/python3/dist-packages",
  "/workspace/.venv/lib/python3.11/site-packages",
];

describe("readSearchPaths", () => {
  it("keeps the copy's and the home's folders, as the set-up state's, and the checkout's own as the checkout's", () => {
    const { root, hostPath } = setting();
    const output = [
      "a .pth file printed this",
      "magis-node-modules /workspace/node_modules",
      "magis-node-modules /workspace/packages/a/node_modules",
      "magis-node-modules /elsewhere/node_modules",
      `magis-python-path ${JSON.stringify(PYTHON)}`,
      "magis-where /workspace",
      "magis-home /tmp/home",
      "",
    ].join("\n");
    expect(readSearchPaths(output, hostPath, root)).toEqual({
      roots: ["/kept/set-up", "/kept/home"],
      python: ["/kept/set-up/.venv/lib/python3.11/site-packages", path.join(root, "src"), "/kept/home/.local/lib/python3.11/site-packages"],
      nodeModules: [
        { from: "/kept/set-up/node_modules", at: "node_modules" },
        { from: "/kept/set-up/packages/a/node_modules", at: "packages/a/node_modules" },
      ],
    });
  });

  it("takes the last lines printed, and gives nothing where the sandbox did not say where the copy is", () => {
    const { root, hostPath } = setting();
    expect(readSearchPaths("magis-python-path []\n", hostPath, root)).toBeNull();
    const twice = ["magis-where /nowhere", 'magis-python-path ["/workspace/lib"]', "magis-where /workspace", "magis-python-path not json"].join("\n");
    expect(readSearchPaths(twice, hostPath, root)).toEqual({ roots: ["/kept/set-up", "/kept/home"], python: [], nodeModules: [] });
  });

  it("trusts no root the output names: a forged copy folder gives nothing, a forged home is not a root", () => {
    const { root, hostPath } = setting();
    // The repository's interpreter printed these last (and killed the shell before the real lines): its link `l` leads out.
    expect(readSearchPaths('magis-python-path ["/workspace/l/x"]\nmagis-where /workspace/l\nmagis-home /tmp/home\n', hostPath, root)).toBeNull();
    const forgedHome = readSearchPaths("magis-where /workspace\nmagis-home /workspace/l\n", hostPath, root);
    expect(forgedHome?.roots).toEqual(["/kept/set-up", "/kept/home"]);
  });
});
