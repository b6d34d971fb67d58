import { describe, expect, it } from "vitest";
import { defaultEngine, loadEngine } from "../../../../src/backends/sqlite/sqlite-engines.js";
import { expectedEngines, loadableEngines } from "../../../support/each-sqlite-engine.js";

describe("the SQLite engines", () => {
  it("loads every engine this Node has, so the suites declared per engine run on each of them", () => {
    expect(loadableEngines().map((engine) => engine.name)).toEqual(expectedEngines());
  });

  it("says why node:sqlite does not load on a Node without it, and which Node has it", () => {
    const engine = loadEngine("node:sqlite");
    if (expectedEngines().includes("node:sqlite")) expect(engine).not.toBeInstanceOf(Error);
    else expect((engine as Error).message).toBe(`not built into Node ${process.version}, only into Node 22.13 and later`);
  });

  it("prefers the installed better-sqlite3, and opens files with it", () => {
    const engine = defaultEngine();
    expect(engine.name).toBe("better-sqlite3");
    const db = engine.open(":memory:");
    expect(db.prepare("SELECT 1 + 1 AS two").get()).toEqual({ two: 2 });
    db.close();
  });
});
