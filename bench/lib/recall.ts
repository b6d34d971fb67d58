/** The cut-offs the localization benchmark reports. */
export const RECALL_KS = [1, 3, 5, 10, 20] as const;

/** One instance's outcome: the 1-based rank of its best-ranked gold file, or null when none was ranked. */
export interface RankOutcome {
  group: string;
  rank: number | null;
}

/** Share of outcomes whose gold file is within the top k, per k, as percentages. */
export function recallAtK(outcomes: RankOutcome[]): Record<number, number> {
  const result: Record<number, number> = {};
  for (const k of RECALL_KS) {
    const hits = outcomes.filter((o) => o.rank !== null && o.rank <= k).length;
    result[k] = outcomes.length === 0 ? 0 : (100 * hits) / outcomes.length;
  }
  return result;
}

/** A plain-text table of recall@k overall and per group (repository). */
export function formatRecallTable(outcomes: RankOutcome[]): string {
  const groups = [...new Set(outcomes.map((o) => o.group))].sort();
  const rows: Array<[string, number, Record<number, number>]> = [
    ["overall", outcomes.length, recallAtK(outcomes)],
    ...groups.map((g): [string, number, Record<number, number>] => {
      const mine = outcomes.filter((o) => o.group === g);
      return [g, mine.length, recallAtK(mine)];
    }),
  ];
  const width = Math.max(...rows.map((r) => r[0].length), 10);
  const header = `${"repository".padEnd(width)}  ${"n".padStart(3)}  ${RECALL_KS.map((k) => `@${k}`.padStart(6)).join(" ")}`;
  const lines = rows.map(
    ([name, n, recall]) => `${name.padEnd(width)}  ${String(n).padStart(3)}  ${RECALL_KS.map((k) => `${recall[k]!.toFixed(1)}%`.padStart(6)).join(" ")}`,
  );
  return [header, ...lines].join("\n");
}
