import { similarity } from "../edit/similarity.js";
import { EvalInputError, isBadRecord, type BadInstanceRecord, type BenchInstance } from "./read-instances.js";

/** How alike a known id must be to an unknown one to be offered in its place (1 - edit distance / length). */
const NEAR = 0.6;

/** What picks a run's records: the data file they came from (for messages), --instances and --limit. */
export interface Selection {
  data: string;
  instances?: string[];
  limit?: number;
}

/**
 * The records to run, in file order: those `instances` names (all when none), each id once, the first `limit` of them.
 * Refused before anything runs (an EvalInputError) when `instances` names an id the file does not hold (with the
 * nearest ids it does hold), and when not one selected record is a usable instance: a run of input failures alone
 * would measure nothing.
 */
export function selectInstances(records: (BenchInstance | BadInstanceRecord)[], { data, instances, limit }: Selection): (BenchInstance | BadInstanceRecord)[] {
  const known = [...new Set(records.map((record) => record.instance_id))];
  const unknown = (instances ?? []).filter((id) => !known.includes(id));
  if (unknown.length > 0) throw new EvalInputError(describeUnknown(unknown, known, data));
  const wanted = instances ? new Set(instances) : null;
  const seen = new Set<string>();
  const selected: (BenchInstance | BadInstanceRecord)[] = [];
  for (const record of records) {
    // Only the first record of an id runs; a later one would overwrite its outputs.
    if ((wanted && !wanted.has(record.instance_id)) || seen.has(record.instance_id)) continue;
    seen.add(record.instance_id);
    selected.push(record);
  }
  const chosen = limit === undefined ? selected : selected.slice(0, limit);
  const bad = chosen.filter(isBadRecord);
  if (bad.length === chosen.length && bad.length > 0) {
    const which = chosen.length === 1 ? "the record" : `all ${chosen.length} records`;
    throw new EvalInputError(
      `${which} ${wanted || limit !== undefined ? "selected from" : "of"} ${data} failed to load, so nothing would run; the first: ${bad[0]!.reason}`,
    );
  }
  return chosen;
}

/** `--instances names 1 id that FILE does not hold: a__b-12 (nearest: a__b-123, a__b-121); it holds 30 ids, such as …`. */
function describeUnknown(unknown: string[], known: string[], data: string): string {
  const described = unknown.map((id) => {
    const nearest = known
      .map((other) => ({ other, score: similarity(id, other, NEAR) }))
      .filter(({ score }) => score >= NEAR)
      .sort((a, b) => b.score - a.score)
      .slice(0, 3)
      .map(({ other }) => other);
    return nearest.length > 0 ? `${id} (nearest: ${nearest.join(", ")})` : id;
  });
  const some = known.slice(0, 3).join(", ") + (known.length > 3 ? ", …" : "");
  const count = unknown.length === 1 ? "1 id that" : `${unknown.length} ids that`;
  return `--instances names ${count} ${data} does not hold: ${described.join("; ")}. It holds ${known.length} id${known.length === 1 ? "" : "s"}: ${some}`;
}
