// ESLint: typescript-eslint's recommended rules over the sources, tests, benchmarks and examples (the type check
// itself is tsc's, in .ci/run).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      "dist/",
      "dist-action/",
      "dist.building/",
      "coverage/",
      "bench/.cache/",
      "bench/results/",
      // Packages the diagnostics bench installs into a repository's environment: their code, as a package ships it.
      "bench/fixtures/",
      "bin/",
      "eslint.config.js",
      ".dependency-cruiser.cjs",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Tests build webhook payloads and API answers from loose JSON fixtures.
    files: ["test/**/*.ts", "bench/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // A function of more than four parameters takes an options object: call sites then name what they pass.
    files: ["src/**/*.ts"],
    rules: { "max-params": ["error", 4] },
  },
  {
    // GitHub is called only through the named readers and writers of src/github (docs/architecture.md). The
    // dependency-cruiser rule `octokit-only-in-github` bans the @octokit packages; it cannot see a call on an octokit
    // handed in (context.octokit), nor which names an import from probot takes.
    files: ["src/**/*.ts"],
    ignores: ["src/github/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.type='MemberExpression'][object.property.name='rest']",
          message: "Call GitHub through a reader or writer in src/github/ (read/, publish/, branches/, status/), not octokit.rest here.",
        },
        {
          selector: "MemberExpression[property.name=/^(paginate|graphql)$/]",
          message: "Call GitHub through a reader or writer in src/github/ (read/, publish/, branches/, status/), not octokit.paginate or .graphql here.",
        },
        {
          selector: "MemberExpression[property.name='request']:matches([object.name=/octokit/i], [object.property.name=/octokit/i])",
          message: "Call GitHub through a reader or writer in src/github/ (read/, publish/, branches/, status/), not octokit.request here.",
        },
      ],
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "probot",
              importNames: ["ProbotOctokit"],
              message: "Name a GitHub client by src/github/types.ts (Octokit, OctokitClass); only src/github builds or calls one.",
            },
          ],
        },
      ],
    },
  },
);
