import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EvalInputError, readInstanceRecords, readInstances } from "../../../src/eval/read-instances.js";

// Six rows of SWE-bench Lite's test split, one per repository, as SWE-bench ships them (plus gold_files).
const SAMPLE = path.resolve(import.meta.dirname, "../../fixtures/swe-bench-lite-sample.jsonl");

let dir: string;
let rows: Record<string, unknown>[];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-read-instances-"));
  rows = fs
    .readFileSync(SAMPLE, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Writes `text` (or bytes) to a file of the test's folder and returns its path. */
function write(name: string, text: string | Uint8Array): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe("reading SWE-bench data", () => {
  it("reads SWE-bench's JSON array as it reads JSON Lines, telling them apart by content, not by name", () => {
    // Each under the other's extension: only what the file holds decides.
    const lines = readInstanceRecords(write("sample.json", rows.map((row) => JSON.stringify(row)).join("\n") + "\n"));
    const array = readInstanceRecords(write("sample.jsonl", JSON.stringify(rows, null, 2)));
    expect(array.map((record) => record.instance_id)).toEqual([
      "astropy__astropy-6938",
      "pydata__xarray-3364",
      "mwaskom__seaborn-3190",
      "psf__requests-1963",
      "pylint-dev__pylint-5859",
      "pallets__flask-4045",
    ]);
    expect(array.every((record) => !("reason" in record))).toBe(true);
    expect(array).toEqual(lines);
    // A byte-order mark and white space before the array change nothing.
    expect(readInstanceRecords(write("bom.json", `\uFEFF\n  ${JSON.stringify(rows)}`))).toEqual(lines);
  });

  it("makes a broken item of an array that instance's failure, named by its place, and reads the rest", () => {
    const file = write("mixed.json", JSON.stringify([rows[0], { instance_id: "acme__greet-9", repo: 7 }, "text", rows[1]]));
    const records = readInstanceRecords(file);
    expect(records.map((record) => [record.instance_id, "reason" in record ? record.reason : null])).toEqual([
      ["astropy__astropy-6938", null],
      ["acme__greet-9", `${file} item 2 has no string 'repo'`],
      ["item-3", `${file} item 3 is not a JSON object; each record must be one instance object`],
      ["pydata__xarray-3364", null],
    ]);
    expect(() => readInstances(file)).toThrow(`${file} item 2 has no string 'repo'`);
  });

  it("refuses a file that is neither JSON Lines nor a JSON array, naming the file and what was expected", () => {
    const one = JSON.stringify(rows[0], null, 2);
    const cases: Array<[string, string | Uint8Array, string]> = [
      ["empty.jsonl", "", "is empty"],
      ["blank.jsonl", " \n\n\t\n", "is empty"],
      ["pretty-object.json", one, `is neither JSON Lines nor a JSON array: no line of it is a JSON object (it begins '{')`],
      [
        "table.csv",
        "instance_id,repo\nastropy__astropy-6938,astropy/astropy\n",
        "is neither JSON Lines nor a JSON array: no line of it is a JSON object (it begins 'instance_id,repo')",
      ],
      ["cut.json", JSON.stringify(rows).slice(0, 500), "begins with '[' but is not a JSON array ("],
      ["lines-of-arrays.jsonl", "[1]\n[2]\n", "begins with '[' but is not a JSON array ("],
      [
        "test-00000-of-00001.parquet",
        Buffer.concat([Buffer.from("PAR1"), Buffer.alloc(64)]),
        "is a Parquet file; convert it to JSON Lines first (docs/evaluation.md shows how)",
      ],
    ];
    for (const [name, text, says] of cases) {
      const file = write(name, text);
      let thrown: unknown;
      try {
        readInstanceRecords(file);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, name).toBeInstanceOf(EvalInputError);
      const message = (thrown as Error).message;
      expect(message.startsWith(`${file} `), message).toBe(true);
      expect(message, name).toContain(says);
      expect(message, name).toContain("expected SWE-bench instances, as JSON Lines (one instance object a line) or as a JSON array of instance objects");
    }
  });
});
