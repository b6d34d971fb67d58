import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openEnvironmentShelf } from "../../src/environment/index.js";
import { UNINSTALLED_REASON } from "../../src/triggers/rules/on-uninstalled.js";
import { holdSqliteLock, type HeldLock } from "../support/hold-sqlite-lock.js";
import { FULL, INSTALLATION, REPO, useRig } from "./e2e-rig.js";
import { examplePayload, labeledPayload } from "./payloads.js";
import { REPO_FILES, scriptResolve } from "./script-resolve.js";

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

/** Keeps an environment for each repository in the app's folder (MAGIS_ENV_DIR), as a worker of the machine would. */
async function keepEnvironments(folder: string, scopes: { repo: string; installationId: number }[]): Promise<void> {
  const shelf = openEnvironmentShelf({ folder, maxBytes: 1_000_000 });
  for (const scope of scopes) {
    const built = path.join(folder, "..", "built", scope.repo);
    for (const part of ["repo", "home"]) fs.mkdirSync(path.join(built, part), { recursive: true });
    fs.writeFileSync(path.join(built, "repo", "setup-was-here"), "yes");
    const record = { keyParts: {}, source: ".github/magis.yml setup_command" as const, builtAt: new Date().toISOString(), buildSeconds: 1, checkoutFiles: [] };
    await shelf.keep({ scope, key: "e".repeat(64), repoDir: path.join(built, "repo"), homeDir: path.join(built, "home"), record });
  }
}

/** The repositories whose environments are kept in `folder`, read by a shelf of its own. */
const keptFor = (folder: string) =>
  openEnvironmentShelf({ folder, maxBytes: 1 })
    .list()
    .map((record) => record.scope.repo)
    .sort();

/** Records a finished job of each repository (`owner/name` as GitHub spells it) with an entry in its session; gives their ids. */
async function recordSessions(repos: string[]): Promise<number[]> {
  const { store } = rig.app.services;
  const ids: number[] = [];
  for (const [i, full] of repos.entries()) {
    const [owner, repo] = full.split("/") as [string, string];
    const job = (await store.jobs.add({
      delivery: `d-session-${i}`,
      key: `${full.toLowerCase()}#1`,
      kind: "resolve-issue",
      installationId: 1,
      owner,
      repo,
      number: 1,
      payload: {},
    }))!;
    await store.sessions.append(job.id, [{ at: Date.now(), kind: "note", data: JSON.stringify({ text: full }) }]);
    await store.jobs.fail(job.id, "the model refused");
    ids.push(job.id);
  }
  return ids;
}

/** Whether the session of job `id` holds anything. */
async function hasSession(id: number): Promise<boolean> {
  return (await rig.app.services.store.sessions.read(id)).length > 0;
}

async function remembers(repo: string): Promise<boolean> {
  return (await rig.app.services.store.memory.recall(repo, "hello.py")) !== null;
}

describe("the app uninstalled", () => {
  it("forgets what the memory holds of a repository taken from the installation, and of every repository of an account that removes the app", async () => {
    const environments = path.join(rig.root, "environments");
    await rig.setUp({ brokenModel: true, env: { MAGIS_ENV_DIR: environments } });
    await rememberFiles(["octocat/hello-world", "octocat/spoon-knife", "hubot/hello-world"]);
    const [helloWorld, spoonKnife, hubot] = await recordSessions(["octocat/Hello-World", "octocat/Spoon-Knife", "hubot/hello-world"]);
    const octocat = examplePayload("installation", "deleted").installation.id;
    await keepEnvironments(environments, [
      { repo: "octocat/Hello-World", installationId: octocat },
      { repo: "octocat/Spoon-Knife", installationId: octocat },
      { repo: "hubot/hello-world", installationId: octocat + 1 },
    ]);

    // Real payloads: octocat takes Hello-World from the installation, then removes the app.
    expect(await rig.app.deliver("installation_repositories", examplePayload("installation_repositories", "removed"), "d-repo-removed")).toBe(200);
    expect(await remembers("octocat/hello-world")).toBe(false);
    expect(await remembers("octocat/spoon-knife")).toBe(true);
    expect([await hasSession(helloWorld!), await hasSession(spoonKnife!)]).toEqual([false, true]);
    expect(
      rig.app.logs.some((line) =>
        line.includes(
          "octocat/hello-world taken from the installation: cancelled 0 of their jobs and forgot the 2 files the memory held of them and the sessions of 1 job, and removed 1 environment kept for them",
        ),
      ),
    ).toBe(true);
    expect(keptFor(environments)).toEqual(["hubot/hello-world", "octocat/Spoon-Knife"]);

    expect(await rig.app.deliver("installation", examplePayload("installation", "deleted"), "d-app-removed")).toBe(200);
    expect(await remembers("octocat/spoon-knife")).toBe(false);
    expect(await remembers("hubot/hello-world")).toBe(true);
    expect([await hasSession(spoonKnife!), await hasSession(hubot!)]).toEqual([false, true]);
    expect(
      rig.app.logs.some((line) =>
        line.includes(
          "the app was removed by octocat, from all its repositories: cancelled 0 of their jobs and forgot the 2 files the memory held of them and the sessions of 1 job",
        ),
      ),
    ).toBe(true);
    expect(keptFor(environments)).toEqual(["hubot/hello-world"]);
    // Neither is a trigger: nothing recorded, no job but those recorded above.
    expect((await rig.jobs()).map((job) => job.delivery)).toEqual(["d-session-0", "d-session-1", "d-session-2"]);
  });

  it("answers 500 when the store cannot forget, saying to redeliver the webhook, and forgets when it is redelivered", async () => {
    await rig.setUp({ brokenModel: true });
    await rememberFiles(["octocat/hello-world"]);
    held = holdSqliteLock(path.join(rig.root, "magis.db"));
    const payload = examplePayload("installation", "deleted");
    expect(await rig.app.deliver("installation", payload, "d-locked")).toBe(500);
    expect(
      rig.app.logs.some((line) =>
        line.includes(
          "the app was removed by octocat, from all its repositories, but what the app holds of them could not all be forgotten; redeliver this webhook",
        ),
      ),
    ).toBe(true);
    held.release();
    held = undefined;
    expect(await remembers("octocat/hello-world")).toBe(true);
    expect(await rig.app.deliver("installation", payload, "d-locked")).toBe(200);
    expect(await remembers("octocat/hello-world")).toBe(false);
  });

  it("cancels the running job of a repository taken from the installation, and keeps nothing of what the job had summarized", async () => {
    let removed = false;
    await rig.setUp({
      script: (model) => {
        // The Custodian's first summary waits until GitHub says the repository was taken from the installation.
        model.script("custodian-summarize-file", async () => {
          if (!removed) {
            removed = true;
            const payload = examplePayload("installation_repositories", "removed");
            payload.installation.id = INSTALLATION;
            payload.repositories_removed = [{ ...payload.repositories_removed[0], name: REPO, full_name: FULL }];
            expect(await rig.app.deliver("installation_repositories", payload, "d-taken")).toBe(200);
          }
          return { summary: "What the file does." };
        });
        scriptResolve(model);
      },
    });
    await rig.app.deliver("issues", labeledPayload({ installationId: INSTALLATION }), "d-run");
    await rig.app.services.settled();
    const [job] = await rig.jobs();
    expect(job).toMatchObject({ status: "cancelled", detail: UNINSTALLED_REASON });
    expect(await rig.app.services.store.sessions.read(job!.id)).toEqual([]);
    for (const file of Object.keys(REPO_FILES)) expect(await rig.app.services.store.memory.recall(FULL.toLowerCase(), file)).toBeNull();
    expect(rig.app.logs.some((line) => line.includes(`${FULL.toLowerCase()} taken from the installation: cancelled 1 of their jobs`))).toBe(true);
    expect(rig.botBranches()).toBe("");
    expect(rig.github.pulls).toEqual([]);
  });
});
