import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveInside } from "../../../src/lib/safe-path.js";

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
