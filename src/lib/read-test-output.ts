import { stripVTControlCharacters } from "node:util";

/** How many tests passed, failed and were skipped, as the runner's summary says. */
export interface TestCounts {
  passed: number;
  failed: number;
  skipped: number;
}

/** What a test run's output says: its counts (when a known summary line was found) and the names of failing tests. */
export interface TestOutputFacts {
  counts: TestCounts | null;
  /** Failing tests by name, in the order printed, without repeats (at most MAX_NAMES). */
  failures: string[];
}

/**
 * One runner's output format: a line that names a failing test (its first group), and the summary lines that give the
 * counts. `sums` formats print one summary per part (cargo: per crate; go: a line per test) and are added up; the
 * others print one summary at the end, and its last occurrence counts.
 */
interface Format {
  failure?: RegExp;
  summary: RegExp;
  /** Reads one summary line's counts (the `summary` match). */
  count: (match: RegExpExecArray) => Partial<TestCounts>;
  sums?: boolean;
}

const MAX_NAMES = 200;
const MAX_NAME_LENGTH = 200;

const tokens = (text: string): Partial<TestCounts> => {
  const found: Partial<TestCounts> = {};
  for (const [, n, word] of text.matchAll(/(\d+) (passed|passing|failed|failing|failures?|errors?|skipped|pending|ignored)\b/g)) {
    const key = /^pass/.test(word!) ? "passed" : /^(fail|error)/.test(word!) ? "failed" : "skipped";
    found[key] = (found[key] ?? 0) + Number(n);
  }
  return found;
};

// The order is the order of trust when several formats give counts (a TAP stream inside a jest run, say): the first
// that found a summary wins.
const FORMATS: Format[] = [
  // pytest: "FAILED tests/test_x.py::test_y - AssertionError", summary "=== 1 failed, 3 passed in 0.12s ===".
  {
    failure: /^(?:FAILED|ERROR) (\S*(?:::|\.py)\S*)/,
    summary: /^=*\s*(\d+ (?:passed|failed|errors?|skipped).*) in \d+(?:\.\d+)?s\b/,
    count: (m) => tokens(m[1]!),
  },
  // node:test (TAP, its default without a terminal): "not ok 3 - name", "# pass 2" / "# fail 1".
  { failure: /^\s*not ok \d+ - (.+)$/, summary: /^# (pass|fail|skipped) (\d+)$/, count: countWord },
  // node:test spec reporter: "✖ name (1.2ms)", "ℹ pass 2".
  { failure: /^\s*✖ (.+?) \(\d+(?:\.\d+)?m?s\)$/, summary: /^ℹ (pass|fail|skipped) (\d+)$/, count: countWord },
  // jest: "● Suite › name", "Tests:       1 failed, 3 passed, 4 total".
  { failure: /^\s*● (.+ › .+)$/, summary: /^Tests:\s+(.*\d+ total)$/, count: (m) => tokens(m[1]!) },
  // vitest: " FAIL  test/x.test.ts > suite > name", "      Tests  1 failed | 3 passed (4)".
  { failure: /^\s*FAIL\s+(\S.* > .+)$/, summary: /^\s*Tests\s+(\d+ (?:passed|failed|skipped).*)\(\d+\)$/, count: (m) => tokens(m[1]!) },
  // unittest: "FAIL: test_x (tests.test_mod.TestCase.test_x)" / "(tests.test_mod.TestCase)", "FAILED (failures=1, errors=1)".
  { failure: /^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)/, summary: /^(?:FAILED \((.*)\)|OK(?: \((.*)\))?)$/, count: unittestCounts },
  // mocha: "3 passing (20ms)", "1 failing".
  { summary: /^\s*(\d+) (passing|failing|pending)\b/, count: (m) => tokens(`${m[1]} ${m[2]}`) },
  // rspec: "5 examples, 1 failure, 1 pending"; "rspec ./spec/x_spec.rb:12 # name".
  {
    failure: /^rspec (\S+)/,
    summary: /^(\d+) examples?, (\d+) failures?(?:, (\d+) pending)?/,
    count: (m) => ({ passed: Number(m[1]) - Number(m[2]) - Number(m[3] ?? 0), failed: Number(m[2]), skipped: Number(m[3] ?? 0) }),
  },
  // cargo test: "test tests::x ... FAILED", "test result: FAILED. 3 passed; 1 failed; 0 ignored" per crate.
  {
    failure: /^test (\S+) \.\.\. FAILED$/,
    summary: /^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/,
    count: (m) => ({ passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3]) }),
    sums: true,
  },
  // go test -v: "--- FAIL: TestX (0.00s)", one line per test.
  {
    failure: /^\s*--- FAIL: (\S+)/,
    summary: /^\s*--- (PASS|FAIL|SKIP): /,
    count: (m) => ({ [m[1] === "PASS" ? "passed" : m[1] === "FAIL" ? "failed" : "skipped"]: 1 }),
    sums: true,
  },
];

function countWord(match: RegExpExecArray): Partial<TestCounts> {
  const n = Number(match[2]);
  return match[1] === "pass" ? { passed: n } : match[1] === "fail" ? { failed: n } : { skipped: n };
}

function unittestCounts(match: RegExpExecArray): Partial<TestCounts> {
  // unittest prints how many ran on the line before ("Ran 5 tests in 0.01s"); the passed count is not on this line.
  const text = match[1] ?? match[2] ?? "";
  const failed = [...text.matchAll(/(?:failures|errors)=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  const skipped = Number(/skipped=(\d+)/.exec(text)?.[1] ?? 0);
  return { failed, skipped };
}

/** Reads the counts and the failing tests' names from a test command's output, for the formats above; ANSI codes are ignored. */
export function readTestOutput(output: string): TestOutputFacts {
  const tallies: (Partial<TestCounts> | null)[] = FORMATS.map(() => null);
  const failures = new Set<string>();
  let ran: number | null = null;
  for (const raw of stripVTControlCharacters(output).split(/\r?\n/)) {
    // Lines are cut before matching: output is the repository's, and no line should cost more than its length.
    const line = raw.length > 2000 ? raw.slice(0, 2000) : raw;
    const ranMatch = /^Ran (\d+) tests? in /.exec(line);
    if (ranMatch) ran = Number(ranMatch[1]);
    FORMATS.forEach((format, i) => {
      const failed = format.failure?.exec(line);
      // A TAP "not ok … # TODO" or "# SKIP" is not a failure.
      if (failed && failures.size < MAX_NAMES && !/\s#\s*(?:SKIP|TODO)\b/i.test(failed[1]!)) failures.add(nameOf(failed));
      const summary = format.summary.exec(line);
      if (!summary) return;
      const counts = format.count(summary);
      tallies[i] = format.sums ? add(tallies[i] ?? {}, counts) : { ...(tallies[i] ?? {}), ...counts };
    });
  }
  const found = tallies.findIndex((t) => t !== null);
  let counts: TestCounts | null = null;
  if (found >= 0) {
    const tally = tallies[found]!;
    counts = { passed: tally.passed ?? 0, failed: tally.failed ?? 0, skipped: tally.skipped ?? 0 };
    if (tally.passed === undefined && ran !== null) counts.passed = Math.max(0, ran - counts.failed - counts.skipped);
  }
  return { counts, failures: [...failures] };
}

function nameOf(match: RegExpExecArray): string {
  // unittest names a test by its method and its class path; others by one string.
  const name = match[2] !== undefined && /^\w+$/.test(match[1]!) ? `${match[2].endsWith(`.${match[1]}`) ? match[2] : `${match[2]}.${match[1]}`}` : match[1]!;
  // vitest ends a failing test's line with its duration ("> name 12ms"), which changes from run to run; the name must not.
  const stable = name.includes(" > ") ? name.replace(/\s+\d+ms$/, "") : name;
  return stable.trim().slice(0, MAX_NAME_LENGTH);
}

function add(a: Partial<TestCounts>, b: Partial<TestCounts>): Partial<TestCounts> {
  const sum: Partial<TestCounts> = { ...a };
  for (const key of ["passed", "failed", "skipped"] as const) if (b[key] !== undefined) sum[key] = (sum[key] ?? 0) + b[key]!;
  return sum;
}
