import { defineConfig } from "vitest/config";

// `npm run test:image`: the container images' builds and checks (test/image), apart from `npm test` since they need
// podman, bwrap and root, and the builds alone take minutes. The global setup builds both targets once; the files run
// one after the other, each starting its own containers.
export default defineConfig({
  test: {
    include: ["test/image/**/*.test.ts"],
    globalSetup: ["test/image/build-targets.ts"],
    setupFiles: ["test/support/no-network.ts"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 600_000,
    // The builds: the base image (a Debian bootstrap), the Dockerfile's stages and the toolchains' packages.
    hookTimeout: 3_600_000,
  },
});
