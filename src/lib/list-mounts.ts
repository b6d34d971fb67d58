import fs from "node:fs";

/** One mount of this process's mount namespace, as /proc/self/mountinfo lists it. */
export interface Mount {
  /** Where it is mounted (an absolute path). */
  target: string;
  /** The file system's type: `overlay`, `fuse.fuse-overlayfs`, `ext4`, … */
  fstype: string;
}

/** The mounts this process sees, in the order they were made (Linux; elsewhere none). */
export function listMounts(): Mount[] {
  let text: string;
  try {
    text = fs.readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return [];
  }
  const mounts: Mount[] = [];
  for (const line of text.split("\n")) {
    // `id parent major:minor root target options [optional fields...] - fstype source super-options`
    const fields = line.split(" ");
    const dash = fields.indexOf("-", 6);
    if (fields.length < 5 || dash < 0) continue;
    mounts.push({ target: unescape(fields[4]!), fstype: fields[dash + 1] ?? "" });
  }
  return mounts;
}

/** The kernel writes a space, tab, newline and backslash in a path as `\040`, `\011`, `\012` and `\134`. */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}
