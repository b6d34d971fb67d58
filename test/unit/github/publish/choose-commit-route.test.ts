import { describe, expect, it } from "vitest";
import { chooseCommitRoute, type CommitFile } from "../../../../src/github/publish/choose-commit-route.js";

const PARENT = "a".repeat(40);
const OTHER = "b".repeat(40);
const file = (path: string, mode?: CommitFile["mode"]): CommitFile => ({ path, bytes: new Uint8Array([1]), ...(mode && { mode }) });

describe("chooseCommitRoute", () => {
  it.each([
    ["a new branch of regular and new files", [file("a.py", "100644"), file("new.py")], { head: null, force: false }, { route: "graphql" }],
    ["a revision on the head it cloned", [file("a.py", "100644")], { head: PARENT, force: false }, { route: "graphql" }],
    ["the bot's branch still at the parent", [file("a.py", "100644")], { head: PARENT, force: true }, { route: "graphql" }],
    [
      "an executable file",
      [file("a.py", "100644"), file("bin/run", "100755")],
      { head: null, force: false },
      { route: "git-data", why: "createCommitOnBranch would write 'bin/run' (100755) as 100644" },
    ],
    [
      "the bot's branch replaced whole",
      [file("a.py", "100644")],
      { head: OTHER, force: true },
      { route: "git-data", why: "the branch is replaced whole, and createCommitOnBranch only appends to its head" },
    ],
  ] as const)("%s", (_name, files, lease, route) => {
    expect(chooseCommitRoute(files, PARENT, lease)).toEqual(route);
  });
});
