import { globMatcher } from "./glob.js";

// Dotfiles match like any file, so `.github/**` protects them; nocase guards case-insensitive file systems.
const OPTIONS = { nocase: true };

function normalize(relativePath: string): string {
  return relativePath.replace(/\\/g, "/").replace(/^\.\//, "");
}

/** A predicate telling whether a repository-relative path matches one of the protected globs. */
export function protectedPathMatcher(patterns: string[]): (relativePath: string) => boolean {
  if (patterns.length === 0) return () => false;
  const match = globMatcher(patterns, OPTIONS);
  return (relativePath) => match(normalize(relativePath));
}

/** The first protected glob a path matches, or null: what a refusal names (the whole default list is thirty globs). */
export function protectingPattern(patterns: string[], relativePath: string): string | null {
  const path = normalize(relativePath);
  return patterns.find((pattern) => globMatcher([pattern], OPTIONS)(path)) ?? null;
}
