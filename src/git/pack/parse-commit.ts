/** What the history reads of a commit object. */
export interface ParsedCommit {
  tree: string;
  parents: string[];
  /** Committer time, in seconds since 1970. */
  time: number;
  /** The whole message, trailing newlines dropped (as `git log --format=%B` read by readLocalHistory gives it). */
  message: string;
}

const OID = /^[0-9a-f]{40}$/;

/**
 * Reads a commit object: header lines (`tree`, `parent`s, `committer`, `encoding`; others, such as `gpgsig` with its
 * continuation lines that start with a space, are passed over) up to the first blank line, then the message, decoded
 * from the encoding the header names (UTF-8 when it names none or one Node does not know), as git log shows it.
 * Throws when the tree or the committer's time is missing: such a commit cannot be compared or placed in time.
 */
export function parseCommit(data: Buffer, oid: string): ParsedCommit {
  const blank = data.indexOf("\n\n");
  const header = data.toString("utf8", 0, blank === -1 ? data.length : blank).split("\n");
  let tree: string | undefined;
  const parents: string[] = [];
  let time = NaN;
  let encoding = "utf-8";
  for (const line of header) {
    const space = line.indexOf(" ");
    const key = line.slice(0, space);
    const value = line.slice(space + 1);
    if (key === "tree" && tree === undefined) tree = value;
    else if (key === "parent") parents.push(value);
    // `committer Name <email> 1700000000 +0100`: the time follows the last '>', as names may hold anything else.
    else if (key === "committer")
      time = Number(
        value
          .slice(value.lastIndexOf(">") + 1)
          .trim()
          .split(" ")[0],
      );
    else if (key === "encoding") encoding = value.trim();
  }
  if (!tree || !OID.test(tree) || !parents.every((parent) => OID.test(parent)))
    throw new Error(`corrupt pack: the commit ${oid} does not name its tree and parents by id`);
  if (!Number.isInteger(time)) throw new Error(`corrupt pack: the commit ${oid} has no committer time`);
  const body = blank === -1 ? Buffer.alloc(0) : data.subarray(blank + 2);
  return { tree, parents, time, message: decode(body, encoding).replace(/\n+$/, "") };
}

/** `bytes` read in `encoding`, or as UTF-8 when Node does not know it (git then shows the bytes as they are). */
function decode(bytes: Buffer, encoding: string): string {
  // Buffer's own UTF-8 reading is the one readLocalHistory's is; TextDecoder would also drop a leading BOM.
  if (/^utf-?8$/i.test(encoding)) return bytes.toString("utf8");
  try {
    return new TextDecoder(encoding, { ignoreBOM: true }).decode(bytes);
  } catch {
    return bytes.toString("utf8");
  }
}
