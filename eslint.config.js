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
);
