import fs from "node:fs";

/** One SWE-bench-style instance, as the localization benchmark needs it. */
export interface BenchInstance {
  instance_id: string;
  repo: string;
  base_commit: string;
  problem_statement: string;
  hints_text?: string;
  /** The files the human fix touches. */
  gold_files: string[];
}

/** Paths of the files a unified diff changes (its `+++ b/…` lines, or `--- a/…` for deletions). */
export function filesOfPatch(patch: string): string[] {
  const files = new Set<string>();
  for (const match of patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) files.add(match[2]!);
  return [...files];
}

/** Reads SWE-bench-style JSON Lines; `gold_files` comes from the record or, failing that, from its `patch`. */
export function readInstances(file: string): BenchInstance[] {
  const lines = fs.readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "");
  return lines.map((line, index) => {
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`${file}:${index + 1} is not JSON; each line must be one instance object`);
    }
    for (const field of ["instance_id", "repo", "base_commit", "problem_statement"]) {
      if (typeof record[field] !== "string") throw new Error(`${file}:${index + 1} has no string '${field}'`);
    }
    const gold = Array.isArray(record.gold_files)
      ? (record.gold_files as string[])
      : typeof record.patch === "string"
        ? filesOfPatch(record.patch)
        : [];
    if (gold.length === 0) throw new Error(`${file}:${index + 1} has neither 'gold_files' nor a 'patch' to take them from`);
    return { ...(record as unknown as BenchInstance), gold_files: gold };
  });
}
