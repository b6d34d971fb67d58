import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { openLanguageServers, type LanguageServers } from "../../../src/language-servers/open-language-servers.js";
import { askSearchPaths } from "../../../src/pipeline/tests/ask-search-paths.js";
import { openWorkbench, type Workbench } from "../../../src/pipeline/tests/open-workbench.js";
import type { StageContext } from "../../../src/pipeline/types.js";
import { showServersTheEnvironment } from "../../../src/pipeline/with-language-servers.js";
import { startTestBench } from "../../../src/pipeline/tests/start-test-bench.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import { bubblewrapForTests } from "../../support/bubblewrap-for-tests.js";

// The environment is asked for its search paths inside the real sandbox, and the servers read its kept set-up state.
let sandbox: Sandbox;
beforeAll(() => {
  sandbox = bubblewrapForTests();
});

const LIMITS = { startMs: 60_000, requestMs: 60_000, memoryMb: 512 };
let work: string;
let root: string;
let workbench: Workbench | null = null;
let servers: LanguageServers | null = null;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-search-paths-"));
  root = path.join(work, "checkout");
  const files: Record<string, string> = {
    "app.py": "def main():\n    return 1\n",
    "src/use.ts": "export const one = 1;\n",
    "tsconfig.json": '{"compilerOptions": {"strict": true}}\n',
    "vendor/calc/pyproject.toml":
      '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n[project]\nname = "calc"\nversion = "1.0"\n',
    "vendor/calc/calc/__init__.py": "def add(a: int, b: int) -> int:\n    return a + b\n",
    "vendor/sum/package.json": '{"name": "sum", "version": "1.0.0", "types": "index.d.ts"}\n',
    "vendor/sum/index.d.ts": "export declare function sum(a: number, b: number): number;\n",
  };
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
});
afterEach(async () => {
  await servers?.stop();
  servers = null;
  workbench?.dispose();
  workbench = null;
  fs.rmSync(work, { recursive: true, force: true });
});

// A setup as a repository declares it: a venv with its own package installed (no registry), a node_modules with its
// own package copied in, and a link to /etc planted among them.
const SETUP = [
  "python3 -m venv --system-site-packages --without-pip .venv",
  ".venv/bin/python -m pip install -q --no-deps --no-build-isolation ./vendor/calc",
  "mkdir -p node_modules && cp -r vendor/sum node_modules/sum && ln -s /etc node_modules/etc",
].join(" && ");

const context = (): StageContext =>
  ({
    root,
    repoId: root,
    config: parseConfig({ setup_command: SETUP, test_command: "true" }),
    llm: null as never,
    now: Date.now,
    onProgress: () => {},
    commands: { allowed: true, sandbox, scratchDir: path.join(work, "bench") },
  }) as StageContext;

async function open(): Promise<Workbench> {
  const opened = await openWorkbench(context());
  if (!opened.ok) throw new Error(opened.why);
  workbench = opened.workbench;
  return workbench;
}

describe("askSearchPaths", () => {
  it("asks the environment inside the sandbox and keeps only the set-up state's folders", async () => {
    const bench = await open();
    const found = await askSearchPaths(bench, root);
    const setUp = bench.hostPath("/workspace")!;
    expect(found).toEqual({
      roots: [setUp, bench.hostPath("/tmp/home")],
      python: [path.join(setUp, ".venv/lib/python3.11/site-packages")],
      nodeModules: [{ from: path.join(setUp, "node_modules"), at: "node_modules" }],
    });
    // The sandbox's own interpreter printed the system's folders too: none of them is handed on.
    expect(JSON.stringify(found)).not.toContain("/usr/");
  });

  it("the job's servers, shown the environment once the workbench opened, catch wrong calls into its packages", async () => {
    const bench = await open();
    expect(bench.environment).toBeDefined();
    servers = openLanguageServers(root, LIMITS);
    showServersTheEnvironment({ ...context(), languageServers: servers }, bench);
    // The paths are asked once, as the first run of the workbench; the same run again is the remembered one.
    const asked = await askSearchPaths(bench, root);
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked?.python).toHaveLength(1);

    const py = await servers.check("app.py", "def main():\n    return 1\n", "from calc import add\n\n\ndef main():\n    return add(1, 2, 3)\n");
    expect(py.checked && py.added.map((p) => `${p.line} ${p.rule}`)).toEqual(["5 reportCallIssue"]);
    const ts = await servers.check("src/use.ts", "export const one = 1;\n", 'import { sum } from "sum";\nexport const one = sum("1", 2);\n');
    expect(ts.checked && ts.added.map((p) => `${p.line} ${p.rule}`)).toEqual(["2 2345"]);
  });

  it("a job's test bench shows its servers the environment as soon as the workbench opened", async () => {
    servers = openLanguageServers(root, LIMITS);
    const started = startTestBench({ ...context(), languageServers: servers });
    try {
      await started.ready;
      const py = await servers.check("app.py", "def main():\n    return 1\n", "from calc import add\n\n\ndef main():\n    return add(1, 2, 3)\n");
      expect(py.checked && py.added.map((p) => `${p.line} ${p.rule}`)).toEqual(["5 reportCallIssue"]);
    } finally {
      await started.close();
    }
  });
});
