import { describe, expect, it } from "vitest";
import type { Env } from "../../../../src/app/settings/define-setting.js";
import { readSettings, type Door } from "../../../../src/app/settings/read-settings.js";
import { SETTINGS_TABLE } from "../../../../src/app/settings/settings-table.js";

/** The message readSettings throws for `env` at `door`, or "" when it reads it. */
function refusal(env: Env, door: Door = "serve"): string {
  try {
    readSettings(env, { door });
    return "";
  } catch (error) {
    return (error as Error).message;
  }
}

const KEY = { PRIVATE_KEY: "-----BEGIN PRIVATE KEY-----" };

describe("readSettings", () => {
  it("holds every default when nothing is set", () => {
    const settings = readSettings({}, { door: "serve" });
    expect(settings.server).toEqual({
      port: 3000,
      logLevel: "info",
      host: "localhost",
      logFormat: undefined,
      nodeEnv: undefined,
      webhookProxyUrl: undefined,
      publicUrl: undefined,
      sessionSecret: undefined,
      sessionsPublic: false,
    });
    expect(settings.jobs).toEqual({
      shutdownGraceSeconds: 300,
      concurrency: 2,
      workerLostSeconds: 60,
      traceDir: undefined,
      sandbox: "auto",
      sandboxSetupNetwork: false,
      setupAllowHosts: [],
      allowExec: false,
    });
    expect(settings.model).toMatchObject({ structuredOutput: "json_schema", maxRetries: 2, timeoutMs: 120_000, tokenBudget: undefined, maxTokens: 4096 });
    expect(settings.model.agentModels).toEqual({});
    expect(settings.git).toMatchObject({ objectCacheMb: 1024, objectCacheDays: 14, timeoutMs: 60_000 });
    expect(settings.github.timeoutMs).toBe(20_000);
    expect(settings.store).toEqual({ databaseUrl: undefined, poolSize: 10, sessionDays: 30, sqliteFile: undefined });
    expect(settings.runner).toMatchObject({ apiUrl: "https://api.github.com", runId: "local", runAttempt: "1", botLogin: "github-actions[bot]" });
    expect(settings.app.appId).toBeUndefined();
  });

  it("reads each kind: digits with underscores, choices, a flag, text, and one model per agent", () => {
    const settings = readSettings(
      {
        PORT: " 8_080 ",
        LOG_LEVEL: "debug",
        MAGIS_ALLOW_EXEC: "1",
        HOST: "0.0.0.0",
        MAGIS_MODEL: "base",
        MAGIS_MODEL_QA: "reviewer",
        MAGIS_MODEL_MANAGER: "",
        MAGIS_TOKEN_BUDGET: "50000",
      },
      { door: "serve" },
    );
    expect(settings.server).toMatchObject({ port: 8080, logLevel: "debug", host: "0.0.0.0" });
    expect(settings.jobs.allowExec).toBe(true);
    expect(settings.model).toMatchObject({ model: "base", agentModels: { qa: "reviewer" }, tokenBudget: 50_000 });
    // Only "1" turns it on, as before the table.
    expect(readSettings({ MAGIS_ALLOW_EXEC: "true" }, { door: "serve" }).jobs.allowExec).toBe(false);
  });

  it("takes blank as unset, except where blank means something", () => {
    const settings = readSettings({ HOST: "", MAGIS_DB: "", MAGIS_TRACE_DIR: "", GITHUB_RUN_ID: "", LOG_LEVEL: "", PORT: "  " }, { door: "action" });
    expect(settings.server.host).toBe("localhost");
    expect(settings.store.sqliteFile).toBeUndefined();
    // An empty MAGIS_TRACE_DIR turns traces off; an empty run id is the runner's to give.
    expect(settings.jobs.traceDir).toBe("");
    expect(settings.runner.runId).toBe("");
    expect(readSettings({ LOG_LEVEL: "", PORT: "  " }, { door: "serve" }).server).toMatchObject({ logLevel: "info", port: 3000 });
    expect(refusal({ MAGIS_STRUCTURED_OUTPUT: "" }, "cli")).toBe('MAGIS_STRUCTURED_OUTPUT must be "json_schema" or "json", not "".');
  });

  it("refuses a mistyped setting with today's messages: the variable, what it holds unless it may be a secret, what to set", () => {
    const cases: Array<[Env, Door, string]> = [
      [
        { PORT: "http" },
        "serve",
        "PORT is 'http': set it to the port the server listens on, 0 for any free one (a whole number, from 0 to 65535), or leave it unset for 3000",
      ],
      [
        { MAGIS_JOBS_CONCURRENCY: "two" },
        "serve",
        "MAGIS_JOBS_CONCURRENCY is 'two': set it to the jobs one process runs at once (a whole number, 1 or more), or leave it unset for 2",
      ],
      [{ LOG_LEVEL: "loud" }, "serve", "LOG_LEVEL is 'loud': set it to one of trace, debug, info, warn, error, fatal, silent, or leave it unset for info"],
      [{ LOG_LEVEL: "postgres://u:hunter2@db/magis" }, "serve", "LOG_LEVEL holds 29 characters that are not a level (not shown"],
      [{ ...KEY, APP_ID: "my-app" }, "serve", "APP_ID is 'my-app': set it to the App ID shown on the GitHub App's settings page (a whole number, 1 or more)"],
      [{ MAGIS_STRUCTURED_OUTPUT: "xml" }, "eval", 'MAGIS_STRUCTURED_OUTPUT must be "json_schema" or "json", not "xml".'],
      [
        { MAGIS_LLM_TIMEOUT_MS: "soon" },
        "cli",
        "MAGIS_LLM_TIMEOUT_MS is 'soon': set it to the milliseconds one model request may take (a whole number, from 1 to 3600000), or leave it unset for 120000",
      ],
      [
        { MAGIS_TOKEN_BUDGET: "999" },
        "action",
        "MAGIS_TOKEN_BUDGET is '999': set it to the tokens one job may spend (a whole number, 1000 or more), or leave it unset for the repository's token_budget",
      ],
      [
        { DATABASE_URL: "postgres://db/magis", MAGIS_DB_POOL_SIZE: "0" },
        "cli",
        "MAGIS_DB_POOL_SIZE is '0': set it to the PostgreSQL connections one process may hold",
      ],
      [{ MAGIS_SHUTDOWN_GRACE_SECONDS: "2147484" }, "serve", "MAGIS_SHUTDOWN_GRACE_SECONDS is '2147484'"],
      [{ MAGIS_GITHUB_TIMEOUT_MS: "2147483648" }, "action", "MAGIS_GITHUB_TIMEOUT_MS is '2147483648'"],
      [{ MAGIS_GIT_TIMEOUT_MS: "0x10" }, "action", "MAGIS_GIT_TIMEOUT_MS is '0x10'"],
    ];
    for (const [env, door, message] of cases) expect(refusal(env, door), JSON.stringify(env)).toContain(message);
  });

  it("holds every whole number to its bounds, and names the variable when it is outside them", () => {
    for (const row of SETTINGS_TABLE) {
      if (!row.bounds) continue;
      const { min, max } = row.bounds;
      const door: Door = row.readers.includes("web") || row.readers.includes("worker") ? "serve" : "action";
      // What onlyWhen waits for, so that the row is read at all.
      const around = { ...KEY, DATABASE_URL: "postgres://db/magis" };
      const value = (raw: string) => (readSettings({ ...around, [row.name]: raw }, { door }) as any)[row.part][row.key];
      expect(value(String(min)), row.name).toBe(min);
      if (max !== undefined) expect(value(String(max)), row.name).toBe(max);
      const outside = [...(min > 0 ? [min - 1] : []), max === undefined ? "9007199254740993" : max + 1, "1.5", "-1", "ten"];
      for (const raw of outside) expect(refusal({ ...around, [row.name]: String(raw) }, door), `${row.name}=${raw}`).toMatch(new RegExp(`^${row.name} is '`));
    }
  });

  it("checks a setting only for the doors that read it, and only when what it depends on is set", () => {
    expect(refusal({ PORT: "http" }, "cli")).toBe("");
    expect(refusal({ PORT: "http" }, "action")).toBe("");
    expect(readSettings({ PORT: "http" }, { door: "eval" }).server.port).toBe(3000);
    expect(refusal({ MAGIS_JOBS_CONCURRENCY: "two" }, "action")).toBe("");
    for (const door of ["serve", "action", "cli", "eval"] as const)
      expect(refusal({ MAGIS_LLM_MAX_TOKENS: "8" }, door), door).toContain("MAGIS_LLM_MAX_TOKENS is '8'");
    // Keeping no objects, their age says nothing; without a database URL, neither does its pool.
    expect(refusal({ MAGIS_OBJECT_CACHE_MB: "0", MAGIS_OBJECT_CACHE_DAYS: "never" })).toBe("");
    expect(refusal({ MAGIS_OBJECT_CACHE_MB: "0_0", MAGIS_OBJECT_CACHE_DAYS: "never" })).toBe("");
    expect(refusal({ MAGIS_OBJECT_CACHE_MB: "1", MAGIS_OBJECT_CACHE_DAYS: "never" })).toContain("MAGIS_OBJECT_CACHE_DAYS is 'never'");
    expect(refusal({ MAGIS_DB_POOL_SIZE: "lots" }, "cli")).toBe("");
    expect(refusal({ DATABASE_URL: "postgres://db/magis", MAGIS_DB_POOL_SIZE: "lots" }, "cli")).toContain("MAGIS_DB_POOL_SIZE is 'lots'");
    // An APP_ID that is not an ID says so even without a key (serve then names the missing key, not the setup page).
    expect(refusal({ APP_ID: "my-app" })).toContain("APP_ID is 'my-app'");
    expect(readSettings({ APP_ID: "12", PRIVATE_KEY_PATH: "/k.pem" }, { door: "serve" }).app.appId).toBe(12);
  });

  // A newcomer's .env with APP_ID=abc and MAGIS_JOBS_CONCURRENCY=zero was refused for APP_ID alone; fixed, the next start
  // refused the other.
  it("names every mistake at once, each with its value and what to set, in the order magis serve checks them", () => {
    expect(refusal({ ...KEY, APP_ID: "abc", MAGIS_JOBS_CONCURRENCY: "zero" })).toBe(
      [
        "2 settings hold what they cannot take:",
        "- APP_ID is 'abc': set it to the App ID shown on the GitHub App's settings page (a whole number, 1 or more), or leave it unset for the setup page, which registers the app",
        "- MAGIS_JOBS_CONCURRENCY is 'zero': set it to the jobs one process runs at once (a whole number, 1 or more), or leave it unset for 2",
      ].join("\n"),
    );
    const three = refusal({ MAGIS_GIT_TIMEOUT_MS: "x", MAGIS_JOBS_CONCURRENCY: "x", PORT: "x" }).split("\n");
    expect(three[0]).toBe("3 settings hold what they cannot take:");
    expect(three.slice(1).map((line) => line.split(" ")[1])).toEqual(["PORT", "MAGIS_JOBS_CONCURRENCY", "MAGIS_GIT_TIMEOUT_MS"]);
    // A setting that depends on a wrong one is still checked (on its default), and an input's refusal names the input.
    expect(refusal({ MAGIS_OBJECT_CACHE_MB: "lots", MAGIS_OBJECT_CACHE_DAYS: "never" }).split("\n").slice(1)).toEqual([
      expect.stringMatching(/^- MAGIS_OBJECT_CACHE_MB is 'lots': /),
      expect.stringMatching(/^- MAGIS_OBJECT_CACHE_DAYS is 'never': /),
    ]);
    expect(refusal({ INPUT_TOKEN_BUDGET: "lots", MAGIS_LLM_TIMEOUT_MS: "soon" }, "action").split("\n").slice(1)).toEqual([
      expect.stringMatching(/^- MAGIS_LLM_TIMEOUT_MS is 'soon': /),
      expect.stringMatching(/^- the action's input token_budget \(read as MAGIS_TOKEN_BUDGET\): MAGIS_TOKEN_BUDGET is 'lots': /),
    ]);
  });

  it("is frozen, part by part", () => {
    const settings = readSettings({ MAGIS_MODEL_QA: "q" }, { door: "serve" });
    expect(Object.isFrozen(settings)).toBe(true);
    for (const part of Object.values(settings)) expect(Object.isFrozen(part)).toBe(true);
    expect(Object.isFrozen(settings.model.agentModels)).toBe(true);
  });
  it("takes the Action's inputs (INPUT_*) for the action door over the variables they set; blank inputs and other doors leave the variables", () => {
    const env = {
      INPUT_OPENAI_API_KEY: "sk-from-input",
      INPUT_MODEL: "gpt-input",
      INPUT_TOKEN_BUDGET: "20_000",
      INPUT_DATABASE: " ",
      INPUT_BOT_LOGIN: "magis-app[bot]",
      MAGIS_MODEL: "from-env",
      MAGIS_DB: ".magis/kept.db",
      OPENAI_BASE_URL: "http://127.0.0.1:1/v1",
    };
    const settings = readSettings(env, { door: "action" });
    expect(settings.model).toMatchObject({ apiKey: "sk-from-input", model: "gpt-input", tokenBudget: 20_000, baseUrl: "http://127.0.0.1:1/v1" });
    expect(settings.store.sqliteFile).toBe(".magis/kept.db");
    expect(settings.runner.botLogin).toBe("magis-app[bot]");
    expect(readSettings(env, { door: "serve" }).model).toMatchObject({ apiKey: undefined, model: "from-env", tokenBudget: undefined });
  });

  it("names the input, not only the variable, when an input holds what its setting cannot take", () => {
    expect(refusal({ INPUT_TOKEN_BUDGET: "lots" }, "action")).toBe(
      "the action's input token_budget (read as MAGIS_TOKEN_BUDGET): MAGIS_TOKEN_BUDGET is 'lots': set it to the tokens one job may spend (a whole number, 1000 or more), or leave it unset for the repository's token_budget",
    );
    expect(refusal({ MAGIS_TOKEN_BUDGET: "lots" }, "action")).toMatch(/^MAGIS_TOKEN_BUDGET is 'lots'/);
  });
});
