// Appends `count` pairs of entries to job 1's session in the SQLite file `file`, as one process of the app would:
// run by sqlite-store.test.ts in two processes at once. Usage: append-sessions.ts FILE WHO COUNT
import fs from "node:fs";
import path from "node:path";
import { openDatabase } from "../../src/backends/sqlite/database.js";
import { SqliteStore } from "../../src/backends/sqlite/sqlite-store.js";

const [file, who, count] = process.argv.slice(2) as [string, string, string];
const store = new SqliteStore(openDatabase(file));
// Both processes start appending at the same moment, once both have loaded: each says it is ready, then waits for the other.
fs.writeFileSync(`${file}.ready-${who}`, "");
while (fs.readdirSync(path.dirname(file)).filter((name) => name.startsWith(`${path.basename(file)}.ready-`)).length < 2) {
  await new Promise((resolve) => setTimeout(resolve, 2));
}
for (let i = 0; i < Number(count); i++) {
  const note = (part: number) => ({ at: Date.now(), kind: "note", data: JSON.stringify({ text: `${who}${i}.${part}` }) });
  await store.sessions.append(1, [note(1), note(2)]);
  // A pause, as a recorder's between its flushes: SQLite's busy handler would otherwise let one process take every turn.
  await new Promise((resolve) => setTimeout(resolve, 1));
}
await store.close();
