import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { DEFAULT_PROTECTED_PATHS, parseConfig } from "../../../src/config.js";
import { globMatcher, globProblem } from "../../../src/lib/glob.js";

describe("globMatcher", () => {
  it.each([
    ["src/**/*.ts", "src/index.ts", true],
    ["src/**/*.ts", "src/a/b/c.ts", true],
    ["src/**/*.ts", "lib/a.ts", false],
    ["docs/**", "docs", true],
    ["docs/**", "docs/a/b.md", true],
    ["docs/**", "docsx/a", false],
    ["**/node_modules/**", "node_modules/x", true],
    ["**/node_modules/**", "a/node_modules/b/c", true],
    ["a/**/b", "a/b", true],
    ["a/**/b", "a/x/y/b", true],
    ["a/**/b", "a/xb", false],
    ["*.md", "README.md", true],
    ["*.md", "docs/README.md", false],
    ["a/*", "a/", false],
    ["a**b", "ax/b", false],
    ["?.py", "a.py", true],
    ["?.py", "/.py", false],
    ["[a-c]*.py", "b1.py", true],
    ["[!a-c]*.py", "b1.py", false],
    ["[^a-c]*.py", "d1.py", true],
    ["**/*.{js,ts}", "lib/app.ts", true],
    ["**/*.{js,ts}", "lib/app.py", false],
    ["a\\*b", "a*b", true],
    ["a\\*b", "axb", false],
    [".github/**", ".github/workflows/ci.yml", true],
    ["x/**/", "x/a/", true],
    ["x/**/", "x/a", false],
  ] as const)("%s against %s: %s", (pattern, path, expected) => {
    expect(globMatcher([pattern])(path)).toBe(expected);
  });

  it("folds case only when asked", () => {
    expect(globMatcher(["**/Makefile"])("src/makefile")).toBe(false);
    expect(globMatcher(["**/Makefile"], { nocase: true })("src/makefile")).toBe(true);
  });

  // picomatch was the matcher before; the patterns and paths of the defaults and the tests match as it matched them,
  // but for its trailing-slash leniency (`a/*` taking `a/b/`), which no caller relies on.
  it("matches as picomatch did on the default protected paths and common patterns", () => {
    const patterns = [
      ...DEFAULT_PROTECTED_PATHS,
      "src/**/*.ts",
      "**/test_*.py",
      "docs/**",
      "*.md",
      "a/**/b",
      "**/*.{js,ts}",
      "x/**/",
      "**/x",
      "a**b",
      "foo/**",
      "tests/*/fixtures/*.json",
    ];
    const paths = [
      "a",
      "a/b",
      "a/x/y/b",
      ".github/workflows/ci.yml",
      ".github",
      "docs/CODEOWNERS",
      "ci/azure-pipelines-1.yml",
      "Jenkinsfile.prod",
      "build/rules.mk",
      "docker/Dockerfile",
      "src/a/b/c.ts",
      "tests/test_x.py",
      "docs",
      "README.md",
      "lib/app.ts",
      "x/a/",
      "foo",
      "foo/a/b",
      "d/x",
      "axb",
      "ax/b",
      "tests/unit/fixtures/a.json",
      "a/.b/c",
      ".husky/pre-commit",
      "packages/a/tox.ini",
    ];
    const differences = patterns.flatMap((pattern) =>
      paths.filter((path) => globMatcher([pattern])(path) !== picomatch(pattern, { dot: true })(path)).map((path) => `${pattern} ~ ${path}`),
    );
    expect(differences).toEqual([]);
  });

  // Each of these took picomatch from half a second to minutes (19 stars over 33 characters: 22 s); the automaton's work
  // grows with the path's length times the pattern's, so the test's own time limit is far away.
  it("matches patterns of many stars against long paths without backtracking", () => {
    const attacks = ["**/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "**/a/**/a/**/a/**/a/**/a/**/b", "{a,b}*{a,b}*{a,b}*{a,b}*{a,b}*b"];
    for (const pattern of attacks) {
      const match = globMatcher([pattern]);
      expect(match("a".repeat(20_000))).toBe(false);
      expect(match(Array(2_000).fill("a").join("/"))).toBe(false);
    }
  });
});

describe("globProblem and the config", () => {
  it("refuses patterns too long, with braces left open or nested, or expanding to too many", () => {
    expect(globProblem("a".repeat(257))).toMatch(/at most 256/);
    expect(globProblem("{a,b")).toMatch(/without its '\}'/);
    expect(globProblem("{a,{b,c}}")).toMatch(/nests/);
    expect(globProblem("{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b}")).toMatch(/more than 64/);
    expect(globProblem("[abc")).toMatch(/without its '\]'/);
    expect(globProblem("src/**/*.{js,ts}")).toBeNull();
  });

  it("names each refused pattern by its place in the list, without quoting it", () => {
    expect(() => parseConfig({ exclude: ["ok/**", `@octocat${"a".repeat(300)}`] })).toThrow(/- exclude\.1: is 308 characters long/);
    expect(() => parseConfig({ protected_paths: ["{a,b"] })).toThrow(/- protected_paths\.0: has a '\{' without its '\}'/);
    try {
      parseConfig({ exclude: [`@octocat${"a".repeat(300)}`] });
    } catch (error) {
      expect(String(error)).not.toContain("@octocat");
    }
  });
});
