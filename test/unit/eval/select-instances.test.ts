import { describe, expect, it } from "vitest";
import type { BadInstanceRecord, BenchInstance } from "../../../src/eval/read-instances.js";
import { EvalInputError } from "../../../src/eval/read-instances.js";
import { selectInstances } from "../../../src/eval/select-instances.js";

const instance = (id: string): BenchInstance => ({
  instance_id: id,
  repo: "astropy/astropy",
  base_commit: "a".repeat(40),
  problem_statement: "x",
  gold_files: ["a.py"],
});
const bad = (id: string, line: number): BadInstanceRecord => ({ where: `data.jsonl:${line}`, instance_id: id, reason: `data.jsonl:${line} is not JSON` });
const RECORDS = [
  instance("astropy__astropy-12907"),
  instance("astropy__astropy-14182"),
  instance("psf__requests-2317"),
  bad("line-4", 4),
  instance("psf__requests-2317"),
];

describe("selecting a run's instances", () => {
  it("keeps file order, each id once, the first --limit of them", () => {
    expect(selectInstances(RECORDS, { data: "data.jsonl" }).map((r) => r.instance_id)).toEqual([
      "astropy__astropy-12907",
      "astropy__astropy-14182",
      "psf__requests-2317",
      "line-4",
    ]);
    const picked = selectInstances(RECORDS, { data: "data.jsonl", instances: ["psf__requests-2317", "astropy__astropy-12907"], limit: 1 });
    expect(picked.map((r) => r.instance_id)).toEqual(["astropy__astropy-12907"]);
  });

  it("refuses --instances ids the file does not hold, naming each with the nearest ids it does hold", () => {
    const select = () =>
      selectInstances(RECORDS, { data: "data.jsonl", instances: ["astropy__astropy-12907", "astropy__astropy-1290", "requests-2317", "sympy__sympy-20590"] });
    expect(select).toThrow(EvalInputError);
    expect(select).toThrow(
      "--instances names 3 ids that data.jsonl does not hold: astropy__astropy-1290 (nearest: astropy__astropy-12907, astropy__astropy-14182); requests-2317 (nearest: psf__requests-2317); sympy__sympy-20590. It holds 4 ids: astropy__astropy-12907, astropy__astropy-14182, psf__requests-2317, …",
    );
  });

  it("refuses a selection of records that all failed to load: the run would measure nothing", () => {
    expect(() => selectInstances([bad("line-1", 1), bad("line-2", 2)], { data: "data.jsonl" })).toThrow(
      "all 2 records of data.jsonl failed to load, so nothing would run; the first: data.jsonl:1 is not JSON",
    );
    expect(() => selectInstances(RECORDS, { data: "data.jsonl", instances: ["line-4"] })).toThrow(
      "the record selected from data.jsonl failed to load, so nothing would run; the first: data.jsonl:4 is not JSON",
    );
  });
});
