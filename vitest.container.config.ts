import { defineConfig } from "vitest/config";

// `npm run test:container`: the sandbox's container backend through a real engine (test/container), apart from
// `npm test` since it needs Podman or Docker, which `npm test` does not install.
export default defineConfig({
  test: {
    include: ["test/container/**/*.test.ts"],
    setupFiles: ["test/support/no-network.ts"],
    pool: "forks",
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
