import { defineConfig } from "vitest/config";

// `npm run test:image`: the container image's build and checks (test/image), apart from `npm test` since they need
// podman, bwrap and root, and the build alone takes minutes.
export default defineConfig({
  test: {
    include: ["test/image/**/*.test.ts"],
    setupFiles: ["test/support/no-network.ts"],
    pool: "forks",
    testTimeout: 120_000,
    // The build: the base image (a Debian bootstrap) and the Dockerfile's two stages.
    hookTimeout: 3_600_000,
  },
});
