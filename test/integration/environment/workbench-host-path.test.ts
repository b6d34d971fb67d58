import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config.js";
import { openWorkbench, type Workbench } from "../../../src/pipeline/tests/open-workbench.js";
import type { StageContext } from "../../../src/pipeline/types.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import { bubblewrapForTests } from "../../support/bubblewrap-for-tests.js";

// The workbench maps what the commands see to the set-up state on the host, for the language servers.
let sandbox: Sandbox;
beforeAll(() => {
  sandbox = bubblewrapForTests();
});

let work: string;
let root: string;
let workbench: Workbench | null = null;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-host-path-"));
  root = path.join(work, "checkout");
  fs.mkdirSync(path.join(root, "src"), { recursive: true });
  fs.writeFileSync(path.join(root, "src", "app.py"), "VALUE = 1\n");
});
afterEach(() => {
  workbench?.dispose();
  workbench = null;
  fs.rmSync(work, { recursive: true, force: true });
});

const context = (config: Record<string, unknown>): StageContext =>
  ({
    root,
    repoId: root,
    config: parseConfig(config),
    llm: null as never,
    now: Date.now,
    onProgress: () => {},
    commands: { allowed: true, sandbox, scratchDir: path.join(work, "bench") },
  }) as StageContext;

describe("Workbench.hostPath", () => {
  it("maps /workspace to the set-up copy, which no run changes, and refuses paths outside it", async () => {
    const opened = await openWorkbench(context({ setup_command: "mkdir -p .venv/lib && echo installed > .venv/lib/mark", test_command: "true" }));
    if (!opened.ok) throw new Error(opened.why);
    workbench = opened.workbench;
    const mark = workbench.hostPath("/workspace/.venv/lib/mark")!;
    expect(mark).toBe(path.join(work, "bench", "set-up", ".venv", "lib", "mark"));
    expect(fs.readFileSync(mark, "utf8")).toBe("installed\n");
    // A run that rewrites the file changes the copy it runs in, not the set-up state the path leads to.
    expect((await workbench.run("echo changed > .venv/lib/mark", [])).outcome).toBe("passed");
    expect(fs.readFileSync(mark, "utf8")).toBe("installed\n");
    expect(workbench.hostPath("/workspace")).toBe(path.join(work, "bench", "set-up"));
    expect(workbench.hostPath("/tmp/home/.cache/pip")).toBe(path.join(work, "bench", "set-up-home", ".cache", "pip"));
    expect(workbench.hostPath("/workspace/../etc/passwd")).toBeNull();
    expect(workbench.hostPath("/usr/lib/python3/dist-packages")).toBeNull();
    expect(workbench.hostPath("src/app.py")).toBeNull();
  });

  it("gives the commands a home the setup fills, put back after each run like the copy", async () => {
    const opened = await openWorkbench(context({ setup_command: 'mkdir -p "$HOME/.cache" && echo cached > "$HOME/.cache/mark"', test_command: "true" }));
    if (!opened.ok) throw new Error(opened.why);
    workbench = opened.workbench;
    expect(fs.readFileSync(workbench.hostPath("/tmp/home/.cache/mark")!, "utf8")).toBe("cached\n");
    const spoil = 'rm -rf "$HOME/.cache" && echo planted > "$HOME/.bashrc" && ls -A "$HOME"';
    expect((await workbench.run(spoil, [])).tail).toBe(".bashrc");
    expect((await workbench.run('ls -A "$HOME"; cat "$HOME/.cache/mark"', [])).tail).toBe(".cache\ncached");
  });
});
