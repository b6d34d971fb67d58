import { describe, expect, it } from "vitest";
import { isLockError, retryWhileLocked } from "../../../../src/backends/sqlite/retry-while-locked.js";

const locked = () => Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
const wait = { totalMs: 200, firstPauseMs: 1, maxPauseMs: 20 };

describe("retryWhileLocked", () => {
  it("tries again while the database is locked and returns the first answer", async () => {
    let tries = 0;
    const heard: number[] = [];
    const answer = await retryWhileLocked(
      () => {
        if (++tries < 4) throw locked();
        return "row";
      },
      wait,
      (n) => void heard.push(n),
    );
    expect(answer).toBe("row");
    expect(heard).toEqual([1, 2, 3]);
  });

  it("throws the lock error once the wait is over, and any other error at once", async () => {
    let tries = 0;
    const failing = (error: () => Error) => () => {
      tries++;
      throw error();
    };
    await expect(retryWhileLocked(failing(locked), wait)).rejects.toMatchObject({ code: "SQLITE_BUSY" });
    expect(tries).toBeGreaterThan(1);
    tries = 0;
    await expect(
      retryWhileLocked(
        failing(() => new Error("no such table: jobs")),
        wait,
      ),
    ).rejects.toThrow("no such table");
    expect(tries).toBe(1);
  });

  it("knows SQLite's lock errors by their codes, as better-sqlite3 names them and as node:sqlite numbers them", () => {
    for (const code of ["SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT", "SQLITE_LOCKED"]) expect(isLockError({ code })).toBe(true);
    // node:sqlite (Node 24.21): { code: "ERR_SQLITE_ERROR", errcode: 5, errstr: "database is locked" }; 773 is SQLITE_BUSY_TIMEOUT.
    for (const errcode of [5, 6, 517, 773]) expect(isLockError({ code: "ERR_SQLITE_ERROR", errcode })).toBe(true);
    for (const error of [
      new Error("database is locked"),
      { code: "SQLITE_IOERR" },
      null,
      "SQLITE_BUSY",
      { code: "ERR_SQLITE_ERROR", errcode: 1 },
      { errcode: 5 },
    ])
      expect(isLockError(error)).toBe(false);
  });
});
