import { describe, expect, it } from "vitest";
import { ConfigError, DEFAULT_PROTECTED_PATHS, modelFor, parseConfig } from "../../src/config.js";
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

  it("takes a test command, its setup and timeout; a setup alone, a blank command or a timeout past an hour is refused", () => {
    expect(parseConfig({ test_command: " npm test ", setup_command: "npm ci" })).toMatchObject({
      test_command: "npm test",
      setup_command: "npm ci",
      test_timeout_seconds: 300,
    });
    expect(parseConfig({}).test_command).toBeUndefined();
    expect(() => parseConfig({ setup_command: "npm ci" })).toThrow(
      "- setup_command: is set without test_command: the setup only serves the tests; set test_command too, or remove setup_command",
    );
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
