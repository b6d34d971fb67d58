import picomatch from "picomatch";

// dot: true so `.github/**` protects dotfiles too; nocase guards case-insensitive file systems.
const OPTIONS = { dot: true, nocase: true };

function normalize(relativePath: string): string {
  return relativePath.replace(/\\/g, "/").replace(/^\.\//, "");
}

/** A predicate telling whether a repository-relative path matches one of the protected globs. */
export function protectedPathMatcher(patterns: string[]): (relativePath: string) => boolean {
  if (patterns.length === 0) return () => false;
  const match = picomatch(patterns, OPTIONS);
  return (relativePath) => match(normalize(relativePath));
}

/** The first protected glob a path matches, or null: what a refusal names (the whole default list is thirty globs). */
export function protectingPattern(patterns: string[], relativePath: string): string | null {
  const path = normalize(relativePath);
  return patterns.find((pattern) => picomatch(pattern, OPTIONS)(path)) ?? null;
}
