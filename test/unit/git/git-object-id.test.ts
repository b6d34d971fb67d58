import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { gitBlobId } from "../../../src/git/git-object-id.js";

describe("gitBlobId", () => {
  it("is the id git gives the same bytes", () => {
    // `printf 'hello\n' | git hash-object --stdin` and the empty blob, as git documents them.
    expect(gitBlobId(Buffer.from("hello\n"))).toBe("ce013625030ba8dba906f756967f9e9ca394464a");
    expect(gitBlobId(Buffer.alloc(0))).toBe("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
  });

  it("agrees with git hash-object on non-UTF-8 bytes", () => {
    const bytes = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café\n" in Latin-1
    const git = execFileSync("git", ["hash-object", "--stdin"], { input: bytes }).toString().trim();
    expect(gitBlobId(bytes)).toBe(git);
  });
});
