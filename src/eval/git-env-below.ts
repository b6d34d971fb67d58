import path from "node:path";

/**
 * The environment eval's git commands run with in `dir`: this process's, passed through on purpose (git's own settings:
 * HOME, PATH, GIT_*), with a ceiling that keeps git from taking a repository above `dir` (a plain tree under a work
 * folder) for its own.
 */
export function gitEnvBelow(dir: string): NodeJS.ProcessEnv {
  return { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(dir) };
}
