import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openDatabase, type Db } from "../../../../src/backends/sqlite/database.js";
import { isLockError } from "../../../../src/backends/sqlite/retry-while-locked.js";
import { forEachSqliteEngine } from "../../../support/each-sqlite-engine.js";

// The adapter's own promises, over each engine that loads here: what the store's code relies on whichever engine runs.
forEachSqliteEngine((engine) => {
  let dir: string;
  let opened: Db[];
  const open = () => {
    const db = openDatabase(path.join(dir, "adapter.db"), engine);
    opened.push(db);
    return db;
  };
  const count = (db: Db) => db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM t").get()!.n;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-sqlite-adapter-"));
    opened = [];
    open().exec("CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, bytes BLOB)");
  });

  afterEach(() => {
    for (const db of opened) db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("opens the file in WAL mode with the engine it was given, and names the file", () => {
    const db = open();
    expect(db.engine).toBe(engine.name);
    expect(db.name).toBe(path.join(dir, "adapter.db"));
    expect(db.prepare<[], { journal_mode: string }>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
  });

  it("runs statements: the changes and the new row's id, one row or none, every row, a blob's bytes", () => {
    const db = open();
    const insert = db.prepare<[string, Uint8Array | null]>("INSERT INTO t (name, bytes) VALUES (?, ?)");
    expect(insert.run("a", Buffer.from([0, 1, 255]))).toMatchObject({ changes: 1 });
    expect(Number(insert.run("b", null).lastInsertRowid)).toBe(2);
    const row = db.prepare<[number], { name: string; bytes: Uint8Array }>("SELECT name, bytes FROM t WHERE id = ?").get(1)!;
    expect(row.name).toBe("a");
    expect([...row.bytes]).toEqual([0, 1, 255]);
    expect(db.prepare("SELECT * FROM t WHERE id = ?").get(99)).toBeUndefined();
    expect(
      db
        .prepare<[], { name: string }>("SELECT name FROM t ORDER BY id")
        .all()
        .map((r) => r.name),
    ).toEqual(["a", "b"]);
    expect(db.prepare("UPDATE t SET name = 'c' WHERE id > ?").run(0).changes).toBe(2);
  });

  it("commits a transaction's writes when its body returns, with the body's arguments and answer", () => {
    const db = open();
    const add = db.transaction((names: string[]) => {
      for (const name of names) db.prepare("INSERT INTO t (name) VALUES (?)").run(name);
      return names.length;
    });
    expect(add(["a", "b"])).toBe(2);
    expect(add.immediate(["c"])).toBe(1);
    expect(count(open())).toBe(3);
  });

  it("rolls back every write of a body that throws, rethrows its error, and leaves no transaction open", () => {
    const db = open();
    const failing = db.transaction(() => {
      db.prepare("INSERT INTO t (name) VALUES ('a')").run();
      db.prepare("INSERT INTO t (name) VALUES (NULL)").run();
    });
    expect(() => failing()).toThrow(/NOT NULL/);
    expect(count(db)).toBe(0);
    // No transaction was left open: a new one begins, and another connection may write.
    db.transaction(() => db.prepare("INSERT INTO t (name) VALUES ('b')").run())();
    open().prepare("INSERT INTO t (name) VALUES ('c')").run();
    expect(count(db)).toBe(2);
  });

  it("takes the write lock at once with immediate: another writer's BEGIN IMMEDIATE gets a lock error, and may retry once it is free", () => {
    const holder = open();
    const other = open();
    other.exec("PRAGMA busy_timeout = 0");
    let tried: unknown;
    holder
      .transaction(() => {
        try {
          other.transaction(() => other.prepare("INSERT INTO t (name) VALUES ('other')").run()).immediate();
        } catch (error) {
          tried = error;
        }
      })
      .immediate();
    expect(isLockError(tried), String(tried)).toBe(true);
    other.transaction(() => other.prepare("INSERT INTO t (name) VALUES ('other')").run()).immediate();
    expect(count(holder)).toBe(1);
  });

  it("refuses a transaction begun inside another, and rolls the outer one back", () => {
    const db = open();
    const inner = db.transaction(() => db.prepare("INSERT INTO t (name) VALUES ('inner')").run());
    const outer = db.transaction(() => {
      db.prepare("INSERT INTO t (name) VALUES ('outer')").run();
      inner();
    });
    expect(() => outer()).toThrow("a transaction was begun inside another one; the store's transactions do not nest");
    expect(count(db)).toBe(0);
  });
});
