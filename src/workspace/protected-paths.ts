import picomatch from "picomatch";

/** A predicate telling whether a repository-relative path matches one of the protected globs. */
export function protectedPathMatcher(patterns: string[]): (relativePath: string) => boolean {
  if (patterns.length === 0) return () => false;
  // dot: true so `.github/**` protects dotfiles too; nocase guards case-insensitive file systems.
  const match = picomatch(patterns, { dot: true, nocase: true });
  return (relativePath) => match(relativePath.replace(/\\/g, "/").replace(/^\.\//, ""));
}
