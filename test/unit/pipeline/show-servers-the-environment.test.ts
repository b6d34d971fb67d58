import { describe, expect, it } from "vitest";
import type { LanguageServers, ServerEnvironment } from "../../../src/language-servers/index.js";
import type { SetUpCopy } from "../../../src/pipeline/tests/ask-search-paths.js";
import type { StageContext, TestRun } from "../../../src/pipeline/types.js";
import { showServersTheEnvironment } from "../../../src/pipeline/with-language-servers.js";

const ROOT = "/jobs/7/checkout";
const SET_UP = "/jobs/7/checkout.tests/own/set-up";

/** A workbench whose sandbox printed what ASK_SEARCH_PATHS prints for a venv in the copy. */
const workbench: SetUpCopy & { environment: { key: string } } = {
  environment: { key: "5e1f0c2a9b7d" },
  run: async (): Promise<TestRun> => ({
    outcome: "passed",
    exitCode: 0,
    counts: null,
    failures: [],
    tail: 'magis-python-path ["/workspace/.venv/lib/python3.11/site-packages"]\nmagis-where /workspace\nmagis-home /tmp/home\n',
    durationMs: 1,
  }),
  hostPath: (inside) => (inside.startsWith("/workspace") ? `${SET_UP}${inside.slice("/workspace".length)}` : null),
};

describe("showServersTheEnvironment", () => {
  // The key is what lets a later job's servers, with the same environment at its own folders, read the untouched
  // files' diagnostics back (see portableFolders).
  it("hands the servers the environment's folders with the key it is kept under", async () => {
    const shown: Promise<ServerEnvironment | null>[] = [];
    const servers = { useEnvironment: (environment: Promise<ServerEnvironment | null>) => void shown.push(environment) } as unknown as LanguageServers;
    showServersTheEnvironment({ root: ROOT, languageServers: servers } as StageContext, workbench);
    expect(shown).toHaveLength(1);
    expect(await shown[0]).toEqual({ key: "5e1f0c2a9b7d", roots: [SET_UP], python: [`${SET_UP}/.venv/lib/python3.11/site-packages`], nodeModules: [] });
  });
});
