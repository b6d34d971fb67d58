/**
 * What the strict fake GitHub saw break GitHub's published descriptions (a request the real API would refuse, an
 * answer the real API would never give). The fake answers as GitHub would and records it here; the setup file
 * `fail-on-violations.ts` fails the test during which it was recorded.
 */
const KEY = Symbol.for("magis.github-spec.violations");
const store = globalThis as { [KEY]?: string[] };

/** Records one violation: what was sent or answered, and which rule it breaks. */
export function reportViolation(what: string, problem: string): void {
  (store[KEY] ??= []).push(`${what}: ${problem}`);
}

/** Throws, listing them, if any violation was recorded since the last call (a test's, or a benchmark's). */
export function assertNoViolations(): void {
  const violations = takeViolations();
  if (violations.length === 0) return;
  throw new Error(`The strict fake GitHub saw ${violations.length} violation(s) of GitHub's specifications:\n- ${violations.join("\n- ")}`);
}

/** The violations recorded since the last call, oldest first. */
export function takeViolations(): string[] {
  return (store[KEY] ??= []).splice(0);
}
