import { ProbotOctokit } from "probot";
import { afterEach, expect, it } from "vitest";
import { openSqliteStore, type SqliteStore } from "../../../src/backends/sqlite/sqlite-store.js";
import type { Octokit } from "../../../src/github/types.js";
import { TriggerDesk } from "../../../src/triggers/trigger-desk.js";
import type { TriggerRule } from "../../../src/triggers/trigger-rule.js";
import { labeledTrigger } from "../../support/labeled-trigger.js";

let store: SqliteStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

// Forty comments on one installation's issues (an outsider's burst), then one label on another installation: the
// other installation's trigger is decided among the first, not after the burst (it waited 108 s behind 40 before).
it("decides a trigger of another installation in its turn, not behind one installation's burst", async () => {
  store = openSqliteStore(":memory:");
  await store.migrate();
  const decided: string[] = [];
  const rule: TriggerRule<"issues.labeled"> = {
    event: "issues.labeled",
    wants: () => true,
    decide: async (context) => {
      // Each decision calls GitHub a few times.
      await new Promise((resolve) => setTimeout(resolve, 20));
      decided.push(context.id);
      return { outcome: "ignored", detail: "decided" };
    },
  };
  const log = { info: () => {}, warn: () => {} };
  const octokit = new ProbotOctokit() as unknown as Octokit;
  const desk = new TriggerDesk(store.triggers, [rule], { auth: async () => octokit, log });
  const deliver = (installation: number, issue: number, id: string) =>
    desk.receive(labeledTrigger(id, issue, { installation, repository: `repo-${installation}`, sender: "someone" }, { octokit, log }));
  for (let issue = 1; issue <= 40; issue++) await deliver(1, issue, `burst-${issue}`);
  await deliver(2, 1, "other-installation");
  await desk.settled();
  expect(decided).toHaveLength(41);
  expect(decided.indexOf("other-installation")).toBeLessThan(6);
});
