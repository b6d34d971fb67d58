import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { holdSqliteLock, type HeldLock } from "../support/hold-sqlite-lock.js";
import { useRig } from "./e2e-rig.js";
import { examplePayload } from "./payloads.js";

const rig = useRig();
let held: HeldLock | undefined;
afterEach(() => {
  held?.release();
  held = undefined;
});

const file = { blobId: "a1b2c3", summary: "Greets the world.", text: "print('Hello, World!')\n" };

/** Remembers two files of each repository, as the Custodian does (`owner/name`, lowercase). */
async function rememberFiles(repos: string[]): Promise<void> {
  for (const repo of repos) for (const name of ["hello.py", "world.py"]) await rig.app.services.store.memory.remember(repo, name, file);
}

async function remembers(repo: string): Promise<boolean> {
  return (await rig.app.services.store.memory.recall(repo, "hello.py")) !== null;
}

describe("the app uninstalled", () => {
  it("forgets what the memory holds of a repository taken from the installation, and of every repository of an account that removes the app", async () => {
    await rig.setUp({ brokenModel: true });
    await rememberFiles(["octocat/hello-world", "octocat/spoon-knife", "hubot/hello-world"]);

    // Real payloads: octocat takes Hello-World from the installation, then removes the app.
    expect(await rig.app.deliver("installation_repositories", examplePayload("installation_repositories", "removed"), "d-repo-removed")).toBe(200);
    expect(await remembers("octocat/hello-world")).toBe(false);
    expect(await remembers("octocat/spoon-knife")).toBe(true);
    expect(rig.app.logs.some((line) => line.includes("the app was uninstalled from octocat/hello-world: forgot the 2 files the memory held of it"))).toBe(true);

    expect(await rig.app.deliver("installation", examplePayload("installation", "deleted"), "d-app-removed")).toBe(200);
    expect(await remembers("octocat/spoon-knife")).toBe(false);
    expect(await remembers("hubot/hello-world")).toBe(true);
    expect(rig.app.logs.some((line) => line.includes("the app was uninstalled from every repository of octocat: forgot the 2 files"))).toBe(true);
    // Neither is a trigger: nothing recorded, no job.
    expect(await rig.jobs()).toEqual([]);
  });

  it("answers 500 when the store cannot forget, saying to redeliver the webhook, and forgets when it is redelivered", async () => {
    await rig.setUp({ brokenModel: true });
    await rememberFiles(["octocat/hello-world"]);
    held = holdSqliteLock(path.join(rig.root, "magis.db"));
    const payload = examplePayload("installation", "deleted");
    expect(await rig.app.deliver("installation", payload, "d-locked")).toBe(500);
    expect(rig.app.logs.some((line) => line.includes("could not forget what the memory holds of every repository of octocat; redeliver this webhook"))).toBe(true);
    held.release();
    held = undefined;
    expect(await remembers("octocat/hello-world")).toBe(true);
    expect(await rig.app.deliver("installation", payload, "d-locked")).toBe(200);
    expect(await remembers("octocat/hello-world")).toBe(false);
  });
});
