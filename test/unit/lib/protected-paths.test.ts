import { describe, expect, it } from "vitest";
import { DEFAULT_PROTECTED_PATHS } from "../../../src/config.js";
import { protectedPathMatcher } from "../../../src/lib/protected-paths.js";

const isProtected = protectedPathMatcher([...DEFAULT_PROTECTED_PATHS]);

describe("the default protected paths", () => {
  it.each([
    ".github/workflows/ci.yml",
    ".github/actions/setup/action.yml",
    ".github/magis.yml",
    ".github/CODEOWNERS",
    "CODEOWNERS",
    ".gitlab-ci.yml",
    ".circleci/config.yml",
    ".buildkite/pipeline.yml",
    "azure-pipelines.yml",
    "Jenkinsfile",
    ".travis.yml",
    "Makefile",
    "build/rules.mk",
    "Dockerfile",
    "tox.ini",
    "noxfile.py",
    ".pre-commit-config.yaml",
    ".husky/pre-commit",
    ".devcontainer/devcontainer.json",
    ".vscode/tasks.json",
    "./Makefile",
    // Nested build definitions CI runs just the same.
    "src/Makefile",
    "docker/Dockerfile",
    "Dockerfile.prod",
    "services/api/Dockerfile",
    "sub/Jenkinsfile",
    "docs/CODEOWNERS",
    "packages/a/tox.ini",
    // The second audit's list: what a workflow, a shell, a package manager, a deploy or a build runs as given.
    "action.yml",
    "tools/setup/action.yaml",
    ".envrc",
    "web/.envrc",
    ".npmrc",
    ".yarnrc.yml",
    ".cargo/config.toml",
    "crates/x/.cargo/config",
    "CMakeLists.txt",
    "src/lib/CMakeLists.txt",
    "Makefile.in",
    "Containerfile",
    "docker-compose.yml",
    "deploy/compose.yaml",
    ".gitmodules",
    "netlify.toml",
    ".readthedocs.yaml",
    ".woodpecker.yml",
    ".woodpecker/test.yml",
  ])("protect %s (CI, build, release, review or the bot's config)", (file) => {
    expect(isProtected(file)).toBe(true);
  });

  it.each([
    "package.json",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
    "Cargo.toml",
    "go.mod",
    "src/index.ts",
    "docs/Makefile.md",
    "tests/test_build.py",
    "src/github/workflows.ts",
    "lib/.github-helpers.js",
    // Code that runs no more trusted than the tests and sources the bot edits anyway (see "Protected paths").
    "build.rs",
    "crates/x/build.rs",
    "conftest.py",
    "tests/conftest.py",
    "src/actions.yml.ts",
  ])("leave %s to the team (manifests and code that real issues are about)", (file) => {
    expect(isProtected(file)).toBe(false);
  });
});
