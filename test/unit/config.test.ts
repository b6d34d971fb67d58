import { describe, expect, it } from "vitest";
import { ConfigError, DEFAULT_PROTECTED_PATHS, hostPatternProblem, modelFor, parseConfig } from "../../src/config.js";
import { parseHostPattern } from "../../src/sandbox/index.js";
import { modelSettings } from "../support/model-settings.js";
import { renderConfigProblems } from "../../src/github/client/load-config.js";

describe("config", () => {
  it("fills every default from an empty file", () => {
    const config = parseConfig(null);
    expect(config.label).toBe("magis");
    expect(config.branch_prefix).toBe("magis/");
    expect(config.top_k).toBe(10);
    expect(config.qa_iterations).toBe(3);
    expect(config.protected_paths).toEqual([...DEFAULT_PROTECTED_PATHS]);
    expect(config.allowed_permissions).toEqual(["write", "maintain", "admin"]);
  });

  it("reports every problem at once, each with its path", () => {
    let error: unknown;
    try {
      parseConfig({ top_k: 0, draft: "yes", models: { qa: 3 }, allowed_permissions: ["owner"], colour: "blue" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const paths = (error as ConfigError).problems.map((p) => p.path).sort();
    expect(paths).toEqual(["", "allowed_permissions.0", "draft", "models.qa", "top_k"]);
    expect((error as ConfigError).message).toContain("colour");
    expect((error as ConfigError).message).toContain("- top_k:");
  });

  it("refuses a branch prefix with characters git or shells would choke on", () => {
    expect(() => parseConfig({ branch_prefix: "magis bot/" })).toThrow(/branch_prefix/);
  });

  it("picks a model per agent: agent env, agent config, MAGIS_MODEL, model", () => {
    const config = parseConfig({ model: "base", models: { qa: "qa-model" } });
    expect(modelFor("qa", config, modelSettings())).toBe("qa-model");
    expect(modelFor("manager", config, modelSettings())).toBe("base");
    expect(modelFor("manager", config, modelSettings({ MAGIS_MODEL: "env" }))).toBe("env");
    expect(modelFor("qa", config, modelSettings({ MAGIS_MODEL_QA: "env-qa", MAGIS_MODEL: "env" }))).toBe("env-qa");
  });

  it("takes a test command, its setup and timeout; a setup alone too (the dynamic way needs it); a blank command or a timeout past an hour is refused", () => {
    expect(parseConfig({ test_command: " npm test ", setup_command: "npm ci" })).toMatchObject({
      test_command: "npm test",
      setup_command: "npm ci",
      test_timeout_seconds: 300,
    });
    expect(parseConfig({}).test_command).toBeUndefined();
    expect(parseConfig({ setup_command: " pip install -e . " }).setup_command).toBe("pip install -e .");
    expect(() => parseConfig({ test_command: "  " })).toThrow(/- test_command:/);
    expect(() => parseConfig({ test_command: "npm test", test_timeout_seconds: 7200 })).toThrow(/- test_timeout_seconds:/);
  });
});

describe("the config's bounds and its problems as posted", () => {
  it("refuses numbers past their upper bounds", () => {
    for (const [key, value] of [
      ["max_repo_mb", 9e15],
      ["job_timeout_minutes", 1440],
      ["token_budget", 1e12],
      ["max_file_bytes", 1e10],
    ] as const) {
      expect(() => parseConfig({ [key]: value }), key).toThrow(new RegExp(`- ${key}: Too big`));
    }
  });

  it("refuses a plan approval that, with the job's time limit, would outlast the 230 minutes a job may last (graphile-worker's 4 hours)", () => {
    expect(() => parseConfig({ plan_approval_minutes: 1440 })).toThrow(/- plan_approval_minutes: Too big/);
    expect(parseConfig({ plan_approval: true, job_timeout_minutes: 30, plan_approval_minutes: 200 })).toMatchObject({ plan_approval_minutes: 200 });
    let error: unknown;
    try {
      parseConfig({ plan_approval: true, job_timeout_minutes: 60, plan_approval_minutes: 180 });
    } catch (caught) {
      error = caught;
    }
    expect((error as ConfigError).problems).toEqual([
      {
        path: "plan_approval_minutes",
        message: expect.stringContaining("job_timeout_minutes (60) and plan_approval_minutes (180) add up to 240 minutes, more than the 230"),
      },
    ]);
    expect((error as ConfigError).message).toContain("lower one of them so they add up to 230 at most");
    // Without plan_approval no job waits: the pair is not bounded together.
    expect(parseConfig({ job_timeout_minutes: 240, plan_approval_minutes: 60 }).job_timeout_minutes).toBe(240);
  });

  it("posts an unknown key, or any text of the file, without a mention GitHub would notify", () => {
    let error: unknown;
    try {
      parseConfig({ "@octocat please look": 1 });
    } catch (caught) {
      error = caught;
    }
    const posted = renderConfigProblems(error as ConfigError);
    expect(posted).toContain("octocat");
    expect(posted).not.toMatch(/(^|[^\w`])@octocat/);
  });
});

describe("the environment: key", () => {
  it("takes setup and maintenance as one command or a list, env, key files and network hosts", () => {
    const config = parseConfig({
      environment: {
        setup: ["python3 -m venv .venv", " .venv/bin/pip install -e . "],
        maintenance: "npm ci",
        env: { DJANGO_SETTINGS_MODULE: "tests.settings" },
        key_files: ["pyproject.toml", "requirements/*.txt"],
        network: ["pypi.org", "*.pythonhosted.org", "registry.npmjs.org:443", "10.0.0.7", "[::1]:8080", "::1"],
      },
    });
    expect(config.environment).toEqual({
      setup: ["python3 -m venv .venv", ".venv/bin/pip install -e ."],
      maintenance: "npm ci",
      env: { DJANGO_SETTINGS_MODULE: "tests.settings" },
      key_files: ["pyproject.toml", "requirements/*.txt"],
      network: ["pypi.org", "*.pythonhosted.org", "registry.npmjs.org:443", "10.0.0.7", "[::1]:8080", "::1"],
    });
    expect(parseConfig({}).environment).toBeUndefined();
    expect(parseConfig({ environment: {} }).environment).toEqual({});
    expect(() => parseConfig({ environment: { setup: { a: 1 } } })).toThrow("- environment.setup: must be a shell command, or a list of them run in order");
  });

  it("refuses a bad variable name, a bad host, a blank command and an unknown key, each with its path and what is wrong", () => {
    let error: unknown;
    try {
      parseConfig({
        environment: {
          setup: ["make", " "],
          env: { "1BAD": "x", GOOD: "y" },
          network: ["pypi.org", "http://example.com", "*.com", "example.com:99999", "999.1.2.3", "bad_host.org", "[1.2.3.4]", "*"],
          key_files: ["[unclosed"],
          colour: "blue",
        },
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    const at = (path: string) => problems.filter((p) => p.path === path).map((p) => p.message);
    expect(at("environment.setup.1")).toEqual(["is blank: give a shell command, or remove it"]);
    expect(problems.find((p) => p.path === "environment.env.1BAD")?.message).toBe("must be a variable name: letters, digits and _, not starting with a digit");
    for (const index of [1, 2, 3, 4, 5, 6, 7]) expect(at(`environment.network.${index}`)[0]).toMatch(/^must be a host \(example\.com\), a wildcard/);
    expect(at("environment.network.0")).toEqual([]);
    expect(at("environment.network.2")[0]).toContain("a wildcard needs a domain of at least two labels");
    expect(at("environment.network.3")[0]).toContain("the port must be a number from 1 to 65535");
    expect(at("environment.network.6")[0]).toContain("inside [ ] goes an IPv6 address");
    expect(at("environment.key_files.0")).toHaveLength(1);
    expect((error as ConfigError).message).toContain("colour");
  });

  it("holds environment.env to test_env's limits", () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`V${i}`, "x"]));
    expect(() => parseConfig({ environment: { env: many } })).toThrow("- environment.env: may hold at most 50 variables");
    expect(() => parseConfig({ environment: { env: { A: "x".repeat(4097) } } })).toThrow(/- environment\.env\.A:/);
  });
});

describe("hostPatternProblem", () => {
  it("takes no host pattern that the setup's proxy would refuse", () => {
    const samples = [
      "pypi.org",
      "PyPI.org",
      "*.pythonhosted.org",
      "registry.npmjs.org:443",
      "localhost",
      "10.0.0.7",
      "10.0.0.7:8080",
      "::1",
      "[::1]",
      "[::1]:8080",
    ];
    const refused = [
      "*",
      "*.com",
      "http://x.org",
      "x.org:0",
      "x.org:65536",
      "x.org:",
      ":443",
      "a..b",
      "-a.org",
      "a-.org",
      "bad host.org",
      "[1.2.3.4]",
      "999.1.2.3",
      "x.org:ab",
    ];
    for (const pattern of samples) {
      expect(hostPatternProblem(pattern), pattern).toBeNull();
      expect(() => parseHostPattern(pattern), pattern).not.toThrow();
    }
    for (const pattern of refused) expect(hostPatternProblem(pattern), pattern).not.toBeNull();
  });
});
