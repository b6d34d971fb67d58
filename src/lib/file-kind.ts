import type fs from "node:fs";

/** What a file is, for a message that refuses one that is not a regular file: "a FIFO", "a folder", "a socket", "a device". */
export function fileKind(stat: fs.Stats): string {
  if (stat.isFile()) return "a regular file";
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isDirectory()) return "a folder";
  if (stat.isSocket()) return "a socket";
  if (stat.isSymbolicLink()) return "a link";
  return "a device";
}
