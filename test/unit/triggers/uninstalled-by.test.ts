import { describe, expect, it } from "vitest";
import { uninstalledBy } from "../../../src/triggers/rules/on-uninstalled.js";

describe("uninstalledBy", () => {
  it("names every repository of the account that removed the app, and the repositories taken from an installation, lowercased as the memory keys them", () => {
    expect(uninstalledBy("installation.deleted", { installation: { id: 2, account: { login: "OctoCat" } } })).toEqual({ owners: ["octocat"] });
    expect(
      uninstalledBy("installation_repositories.removed", { repositories_removed: [{ full_name: "OctoCat/Hello-World" }, { full_name: "octocat/spoon" }] }),
    ).toEqual({
      repos: ["octocat/hello-world", "octocat/spoon"],
    });
  });

  it("names nothing for other actions, or a payload without what it needs", () => {
    expect(uninstalledBy("installation.created", { installation: { account: { login: "octocat" } } })).toBeNull();
    expect(uninstalledBy("installation_repositories.added", { repositories_added: [{ full_name: "octocat/x" }] })).toBeNull();
    expect(uninstalledBy("installation.deleted", { installation: { id: 2 } })).toBeNull();
    expect(uninstalledBy("installation_repositories.removed", {})).toBeNull();
    expect(uninstalledBy("installation_repositories.removed", { repositories_removed: [{ id: 1 }] })).toEqual({ repos: [] });
  });
});
