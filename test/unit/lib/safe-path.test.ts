import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveInside } from "../../../src/lib/safe-path.js";
import { writeInside } from "../../../src/lib/write-inside.js";

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-safe-"));
  fs.mkdirSync(path.join(root, "src"));
  fs.writeFileSync(path.join(root, "src/a.ts"), "a\n");
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe("resolveInside", () => {
  it("normalizes ./ prefixes, backslashes and inner ..", () => {
    expect(resolveInside(root, "./src/a.ts").relative).toBe("src/a.ts");
    expect(resolveInside(root, "src\\a.ts").relative).toBe("src/a.ts");
    expect(resolveInside(root, "docs/../src/a.ts").relative).toBe("src/a.ts");
  });

  it("refuses escapes, absolute paths and the repository folder in any case", () => {
    expect(() => resolveInside(root, "../x")).toThrow(/outside the repository/);
    expect(() => resolveInside(root, "/etc/passwd")).toThrow(/absolute/);
    for (const p of [".git/config", "src/.git/hooks/pre-commit", ".GIT/hooks/post-checkout", "a/.Git/config", ".git./config", ".git /config", "GIT~1/config"]) {
      expect(() => resolveInside(root, p), p).toThrow(/inside \.git/);
    }
  });

  it("keeps names that merely start like .git", () => {
    expect(resolveInside(root, ".github/magis.yml").relative).toBe(".github/magis.yml");
    expect(resolveInside(root, ".gitignore").relative).toBe(".gitignore");
  });

  it("refuses a symbolic link that leads out of the checkout", () => {
    fs.symlinkSync(os.tmpdir(), path.join(root, "out"));
    expect(() => resolveInside(root, "out/x.ts")).toThrow(/symbolic link/);
  });

  it("refuses a link that leads nowhere, at the file or on its way, rather than taking it for a new file", () => {
    fs.symlinkSync(path.join(os.tmpdir(), `magis-nowhere-${process.pid}`, "f"), path.join(root, "src", "gone.ts"));
    expect(() => resolveInside(root, "src/gone.ts")).toThrow("'src/gone.ts' goes through 'src/gone.ts', a symbolic link that leads nowhere");
    fs.symlinkSync("missing-folder", path.join(root, "lib"));
    expect(() => resolveInside(root, "lib/new.ts")).toThrow(/'lib', a symbolic link that leads nowhere/);
  });
});

describe("writeInside", () => {
  const outside = () => path.join(root, "..", `${path.basename(root)}-outside`);
  afterEach(() => fs.rmSync(outside(), { recursive: true, force: true }));

  it("replaces a link at the path, dangling or not, by a file of its own, and writes nothing where it pointed", () => {
    fs.mkdirSync(outside());
    fs.writeFileSync(path.join(outside(), "kept"), "host\n");
    fs.rmSync(path.join(root, "src", "a.ts"));
    fs.symlinkSync(path.join(outside(), "kept"), path.join(root, "src", "a.ts"));
    fs.symlinkSync(path.join(outside(), "new"), path.join(root, "src", "b.ts"));
    writeInside(root, "src/a.ts", Buffer.from("a2\n"));
    writeInside(root, "src/b.ts", Buffer.from("b2\n"));
    expect(fs.lstatSync(path.join(root, "src", "a.ts")).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(root, "src", "a.ts"), "utf8")).toBe("a2\n");
    expect(fs.readFileSync(path.join(root, "src", "b.ts"), "utf8")).toBe("b2\n");
    expect(fs.readdirSync(outside())).toEqual(["kept"]);
    expect(fs.readFileSync(path.join(outside(), "kept"), "utf8")).toBe("host\n");
  });

  it("keeps the mode of the file it replaces, makes missing folders, and refuses a folder link that leads out", () => {
    fs.chmodSync(path.join(root, "src", "a.ts"), 0o755);
    writeInside(root, "src/a.ts", Buffer.from("#!/bin/sh\n"));
    expect(fs.statSync(path.join(root, "src", "a.ts")).mode & 0o777).toBe(0o755);
    writeInside(root, "new/deep/c.ts", Buffer.from("c\n"));
    expect(fs.readFileSync(path.join(root, "new", "deep", "c.ts"), "utf8")).toBe("c\n");
    fs.mkdirSync(outside());
    fs.symlinkSync(outside(), path.join(root, "out"));
    expect(() => writeInside(root, "out/x.ts", Buffer.from("x"))).toThrow(/symbolic link/);
    expect(() => writeInside(root, "../x.ts", Buffer.from("x"))).toThrow(/outside the repository/);
    expect(fs.readdirSync(outside())).toEqual([]);
  });
});

describe("resolveInside on paths a model writes wrong", () => {
  it("refuses a file named as a folder, and a path below a file, saying so (no ENOTDIR, no host path)", () => {
    expect(() => resolveInside(root, "src/a.ts/")).toThrow("'src/a.ts/' ends with '/', which names a folder; name a file, without the slash");
    expect(() => resolveInside(root, "src/a.ts/b.ts")).toThrow("'src/a.ts/b.ts' goes below 'src/a.ts', which is a file, not a folder");
    try {
      resolveInside(root, "src/a.ts/b.ts");
    } catch (error) {
      expect(String(error)).not.toContain(root);
    }
  });
});
