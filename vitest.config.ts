import os from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Apart, since they need podman and more: the sandbox's container backend, `npm run test:container`
    // (vitest.container.config.ts), and the container image's build, `npm run test:image` (vitest.image.config.ts).
    exclude: [...configDefaults.exclude, "test/container/**", "test/image/**"],
    setupFiles: ["test/support/no-network.ts", "test/support/github-spec/fail-on-violations.ts"],
    pool: "forks",
    // Two files at a time even on two cores (vitest's default there is one): most files wait on the processes they
    // start (git, PostgreSQL, the app), and the suite took 342 s instead of 522 s on this project's two-core machine.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
