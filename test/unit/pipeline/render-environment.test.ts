import { describe, expect, it } from "vitest";
import { renderStatus } from "../../../src/jobs/kinds/resolve/render-status.js";
import { startStatus, trackProgress } from "../../../src/jobs/track-status.js";
import { describeEnvironment, describeSetupNetwork, renderEnvironment } from "../../../src/pipeline/report/render-environment.js";
import { renderReport } from "../../../src/pipeline/report/render-report.js";
import type { EnvironmentReport } from "../../../src/pipeline/types.js";
import { sampleResult } from "./sample-result.js";

const built: EnvironmentReport = {
  source: ".devcontainer/devcontainer.json",
  how: "built",
  steps: ["onCreateCommand", "postCreateCommand"],
  stepSeconds: 41.6,
  readySeconds: 42.4,
  key: "0123456789ab",
  unsupported: ["`features` (ghcr.io/devcontainers/features/python:1) is not installed: declare what it installs in `postCreateCommand`"],
  shadowed: [".github/workflows/copilot-setup-steps.yml (not used: the first found, .devcontainer/devcontainer.json, wins)"],
  network: {
    reached: [
      { host: "registry.npmjs.org:443", count: 12, bytes: 4_123_456 },
      { host: "pypi.org:443", count: 2, bytes: 20_480 },
    ],
    refused: [{ host: "evil.example:443", count: 1, bytes: 0, why: "not in MAGIS_SETUP_ALLOW_HOSTS" }],
  },
  kept: { kept: true },
};

describe("the environment in the report", () => {
  it("says where it was declared, how it was made ready and whether it was kept", () => {
    expect(describeEnvironment(built)).toBe(
      "Environment from .devcontainer/devcontainer.json: built in 42 s (onCreateCommand, postCreateCommand), kept for later jobs",
    );
    const reused: EnvironmentReport = { ...built, how: "reused", steps: ["maintenance[1]"], readySeconds: 2.25, kept: undefined, network: undefined };
    expect(describeEnvironment(reused)).toBe(
      "Environment from .devcontainer/devcontainer.json: reused (kept under 0123456789ab), ready in 2.3 s after its maintenance (maintenance[1])",
    );
    expect(describeEnvironment({ ...built, kept: { kept: false, why: "it is bigger than MAGIS_ENV_CACHE_MB" } })).toMatch(
      /, not kept: it is bigger than MAGIS_ENV_CACHE_MB$/,
    );
    expect(describeEnvironment({ ...built, maintenanceFailed: "its maintenance step `maintenance[1]` failed (exit 1)" })).toBe(
      "Environment from .devcontainer/devcontainer.json: built in 42 s (onCreateCommand, postCreateCommand) (the kept one was not used: its maintenance step `maintenance[1]` failed (exit 1)), kept for later jobs",
    );
    expect(describeEnvironment({ ...built, failed: "the step `postCreateCommand` failed (exit 1)" })).toBe(
      "Environment from .devcontainer/devcontainer.json: not ready: the step `postCreateCommand` failed (exit 1)",
    );
  });

  it("lists the hosts the setup reached and those refused, with why", () => {
    expect(describeSetupNetwork(built.network)).toBe(
      "setup reached 2 hosts (registry.npmjs.org:443, pypi.org:443); refused 1 host (evil.example:443 (not in MAGIS_SETUP_ALLOW_HOSTS))",
    );
    expect(describeSetupNetwork({ reached: [], refused: [] })).toBe("setup reached no host");
    expect(describeSetupNetwork(undefined)).toBeNull();
    const capped = describeSetupNetwork({ reached: [{ host: "a.example:443", count: 1, bytes: 1 }], refused: [], otherRefused: 1200 });
    expect(capped).toBe("setup reached 1 host (a.example:443); refused 1200 requests to hosts not named");
    const many = Array.from({ length: 7 }, (_, i) => ({ host: `h${i}.example`, count: 1, bytes: 1 }));
    expect(describeSetupNetwork({ reached: many, refused: [] })).toBe(
      "setup reached 7 hosts (h0.example, h1.example, h2.example, h3.example, h4.example and 2 more)",
    );
  });

  it("gives the pull request a section with every host, what was not done, what was not used", () => {
    const section = renderEnvironment(built);
    expect(section).toContain("### Environment");
    expect(section).toContain("| registry.npmjs.org:443 | reached | 12 | 4.1 MB |");
    expect(section).toContain("| evil.example:443 | refused: not in MAGIS_SETUP_ALLOW_HOSTS | 1 | — |");
    expect(section).toContain("- `features` (ghcr.io/devcontainers/features/python:1) is not installed");
    expect(section).toContain("Also found, not used:");
    const report = renderReport({ ...sampleResult(), environment: built }, { title: "t", issueNumber: 1 });
    expect(report.indexOf("### Environment")).toBeGreaterThan(0);
  });

  it("caps the hosts' table at 50 rows and says how many more, and what the proxy counted without naming", () => {
    const reached = Array.from({ length: 40 }, (_, i) => ({ host: `h${i}.example:443`, count: 1, bytes: 10 }));
    const refused = Array.from({ length: 30 }, (_, i) => ({ host: `r${i}.example:443`, count: 1, bytes: 0, why: "not in MAGIS_SETUP_ALLOW_HOSTS" }));
    const section = renderEnvironment({ ...built, network: { reached, refused, otherReached: 3, otherRefused: 1200 } });
    expect(section.split("\n").filter((line) => /^\| [hr]\d+\.example/.test(line))).toHaveLength(50);
    expect(section).toContain("| h39.example:443 | reached |");
    expect(section).toContain("| r9.example:443 | refused: not in MAGIS_SETUP_ALLOW_HOSTS |");
    expect(section).not.toContain("r10.example:443");
    expect(section).toContain("And 20 more hosts not shown; and 1203 requests to hosts the proxy did not name (3 reached, 1200 refused).");
    const few = renderEnvironment(built);
    expect(few).not.toContain("not shown");
    expect(few).not.toContain("did not name");
  });

  it("shows the failed step's output folded", () => {
    const run = { outcome: "failed" as const, exitCode: 1, counts: null, failures: [], tail: "pip: command not found", durationMs: 5 };
    const section = renderEnvironment({ ...built, failed: "the step `setup[1]` failed", failedStep: { name: "setup[1]", run } });
    expect(section).toContain("<summary>The end of `setup[1]`</summary>");
    expect(section).toContain("pip: command not found");
  });

  it("puts a checklist item in the status comment once the tests report it", () => {
    let state = startStatus(4, "t");
    state = trackProgress(state, { stage: "tests", tests: { command: "npm test", environment: built } });
    const text = renderStatus(state);
    expect(text).toContain("- [x] Environment from .devcontainer/devcontainer.json: built in 42 s");
    expect(text).toContain("  - setup reached 2 hosts (registry.npmjs.org:443, pypi.org:443); refused 1 host (evil.example:443");
  });
});
