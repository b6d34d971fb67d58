import { describe, expect, it } from "vitest";
import { untouchedKey, type UntouchedKeyParts } from "../../../src/language-servers/remember-untouched.js";

const PARTS: UntouchedKeyParts = {
  server: JSON.stringify(["Pyright", ["1.1.414"], { python: {} }, {}]),
  config: ["", "[tool.pyright]\n"],
  environment: { roots: [], python: [], nodeModules: [] },
  installed: [],
  workspace: "a".repeat(40),
  file: "pkg/prices.py",
  before: "def total(items):\n    return sum(items)\n",
  alongside: [{ path: "pkg/cart.py", text: "from pkg.prices import total\n" }],
};

describe("untouchedKey", () => {
  it("names the same parts alike, in the index cache's key space of its own", () => {
    expect(untouchedKey({ ...PARTS })).toBe(untouchedKey(PARTS));
    expect(untouchedKey(PARTS)).toMatch(/^diagnostics:[0-9a-f]{64}$/);
  });

  it.each<[string, Partial<UntouchedKeyParts>]>([
    ["another blob", { before: `${PARTS.before}\n` }],
    ["another server", { server: JSON.stringify(["the TypeScript server", ["5.9.3"], {}, {}]) }],
    ["another server version", { server: JSON.stringify(["Pyright", ["1.1.415"], { python: {} }, {}]) }],
    ["another config", { config: ["", "[tool.pyright]\ntypeCheckingMode = 'strict'\n"] }],
    ["another environment", { environment: { roots: ["/env"], python: ["/env/site-packages"], nodeModules: [] } }],
    ["other installed packages", { installed: [{ kind: "python", folder: "<root 0>/site-packages", entries: ["calc-2.0.dist-info"] }] }],
    ["another commit", { workspace: "b".repeat(40) }],
    ["another path", { file: "pkg/costs.py" }],
    ["other changes alongside", { alongside: [{ path: "pkg/cart.py", text: "" }] }],
    ["no changes alongside", { alongside: [] }],
  ])("is another key for %s", (_what, change) => {
    expect(untouchedKey({ ...PARTS, ...change })).not.toBe(untouchedKey(PARTS));
  });

  it("does not run parts together: a config text split differently is another key", () => {
    expect(untouchedKey({ ...PARTS, config: ["ab", "c"] })).not.toBe(untouchedKey({ ...PARTS, config: ["a", "bc"] }));
  });
});
