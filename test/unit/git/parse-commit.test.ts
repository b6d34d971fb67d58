import { describe, expect, it } from "vitest";
import { parseCommit } from "../../../src/git/pack/parse-commit.js";

const TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const PARENT = "1".repeat(40);
const OTHER = "2".repeat(40);
const people = "author A Person <a@example.com> 1600000000 +0200\ncommitter Some > One <c@example.com> 1700000000 -0500\n";

/** A commit object's bytes: a header, a blank line and a message, as git writes them. */
function commit(header: string, message: Buffer | string): Buffer {
  return Buffer.concat([Buffer.from(`${header.replace(/\n$/, "")}\n\n`), Buffer.from(message)]);
}

describe("parseCommit", () => {
  it("reads the tree, the parent, the committer's time and a message with no body", () => {
    const parsed = parseCommit(commit(`tree ${TREE}\nparent ${PARENT}\n${people}`, "Fix the parser\n"), "c");
    expect(parsed).toEqual({ tree: TREE, parents: [PARENT], time: 1700000000, message: "Fix the parser" });
  });

  it("keeps a multi-line message whole, blank lines and trailers included, dropping only the trailing newlines", () => {
    const message = "Subject line\n\nA body\nover two lines.\n\n\nSigned-off-by: A <a@example.com>\n\n";
    expect(parseCommit(commit(`tree ${TREE}\nparent ${PARENT}\n${people}`, message), "c").message).toBe(
      "Subject line\n\nA body\nover two lines.\n\n\nSigned-off-by: A <a@example.com>",
    );
  });

  it("lists a merge's parents and a root commit's none", () => {
    expect(parseCommit(commit(`tree ${TREE}\nparent ${PARENT}\nparent ${OTHER}\n${people}`, "Merge\n"), "m").parents).toEqual([PARENT, OTHER]);
    expect(parseCommit(commit(`tree ${TREE}\n${people}`, "Start\n"), "r").parents).toEqual([]);
  });

  it("decodes the message from the encoding its header names", () => {
    const latin1 = Buffer.from("Caf\xe9 cr\xe8me\n\nD\xe9j\xe0 vu.\n", "latin1");
    const parsed = parseCommit(commit(`tree ${TREE}\nparent ${PARENT}\n${people}encoding ISO-8859-1`, latin1), "e");
    expect(parsed.message).toBe("Café crème\n\nDéjà vu.");
  });

  it("reads an unknown encoding as UTF-8, and UTF-8 as Buffer reads it (a leading BOM kept)", () => {
    expect(parseCommit(commit(`tree ${TREE}\n${people}encoding x-no-such`, "Ünïcode\n"), "u").message).toBe("Ünïcode");
    expect(parseCommit(commit(`tree ${TREE}\n${people}encoding UTF-8`, "\ufeffBOM\n"), "b").message).toBe("\ufeffBOM");
  });

  it("passes over a gpgsig header and its continuation lines, blank ones included", () => {
    const signature = ["gpgsig -----BEGIN PGP SIGNATURE-----", " ", " iQEzBAABCAAdFiEE", " =abcd", " -----END PGP SIGNATURE-----"].join("\n");
    const parsed = parseCommit(commit(`tree ${TREE}\nparent ${PARENT}\n${people}${signature}`, "Signed work\n\nparent ffff\n"), "s");
    expect(parsed).toEqual({ tree: TREE, parents: [PARENT], time: 1700000000, message: "Signed work\n\nparent ffff" });
  });

  it("reads a commit whose message is empty", () => {
    expect(parseCommit(commit(`tree ${TREE}\nparent ${PARENT}\n${people}`, ""), "c").message).toBe("");
    expect(parseCommit(Buffer.from(`tree ${TREE}\n${people}`), "c").message).toBe("");
  });

  it("refuses a commit without a tree or a committer time, naming it", () => {
    expect(() => parseCommit(commit(people, "No tree\n"), "abc")).toThrow("corrupt pack: the commit abc does not name its tree and parents by id");
    expect(() => parseCommit(commit(`tree ${TREE}\nauthor A <a@example.com> 1 +0000\n`, "No committer\n"), "abc")).toThrow(
      "corrupt pack: the commit abc has no committer time",
    );
  });
});
