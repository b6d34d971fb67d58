import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../../src/config.js";
import { configJsonSchema, renderConfigSchema } from "../../../../src/app/settings/render-config-schema.js";
import { renderConfigurationDocs } from "../../../../src/app/settings/render-configuration-docs.js";
import { APP_MANIFEST_MARKERS, renderAppManifestDocs, replaceBetweenMarkers } from "../../../../src/app/settings/render-app-manifest.js";
import { SETTINGS_TABLE } from "../../../../src/app/settings/settings-table.js";

const DOCS = path.resolve(import.meta.dirname, "../../../../docs");
const STALE = "is not what the settings table and the config's schema generate: run `npm run docs:config` and commit what it writes";

describe("the generated configuration docs", () => {
  it("docs/configuration.md and docs/magis.schema.json are the ones the table and the schema generate", () => {
    expect(fs.readFileSync(path.join(DOCS, "configuration.md"), "utf8"), `docs/configuration.md ${STALE}`).toBe(renderConfigurationDocs());
    expect(fs.readFileSync(path.join(DOCS, "magis.schema.json"), "utf8"), `docs/magis.schema.json ${STALE}`).toBe(renderConfigSchema());
  });

  it("docs/app.md lists the events and permissions of app.yml, each with why the app asks for it", () => {
    const page = fs.readFileSync(path.join(DOCS, "app.md"), "utf8");
    const manifest = fs.readFileSync(path.join(DOCS, "../app.yml"), "utf8");
    expect(page, `docs/app.md ${STALE.replace("the settings table and the config's schema generate", "app.yml generates")}`).toBe(
      replaceBetweenMarkers(page, renderAppManifestDocs(manifest)),
    );
    for (const name of ["issues", "check_suite", "contents", "actions"]) expect(page).toContain(`| \`${name}\` |`);
    expect(() => renderAppManifestDocs("default_events: [push]")).toThrow(/asks for the event push, and .* does not say why/);
    expect(() => replaceBetweenMarkers("# no markers", "x")).toThrow(APP_MANIFEST_MARKERS.begin);
  });

  it("name every variable and every key of .github/magis.yml, each key with a description", () => {
    const page = renderConfigurationDocs();
    for (const row of SETTINGS_TABLE) expect(page, row.name).toContain(`| \`${row.name}\` |`);
    const schema = configJsonSchema();
    const keys = Object.keys(parseConfig({})).concat(["model", "test_command", "setup_command", "environment", "cost_budget_usd"]);
    expect(Object.keys(schema.properties ?? {}).sort()).toEqual([...new Set(keys)].sort());
    for (const [key, field] of Object.entries(schema.properties ?? {})) {
      expect(field.description, `${key} has no description: add .describe() in src/config.ts`).toBeTruthy();
      expect(page, key).toContain(`| \`${key}\` |`);
      for (const [inner, sub] of Object.entries(field.properties ?? {})) expect(sub.description, `${key}.${inner} has no description`).toBeTruthy();
    }
  });

  it("the JSON Schema is for a file as written: no key is required, unknown keys are refused", () => {
    const schema = JSON.parse(renderConfigSchema()) as {
      required?: string[];
      additionalProperties?: boolean;
      $schema?: string;
      properties: Record<string, { default?: unknown }>;
    };
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.required ?? []).toEqual([]);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.qa_iterations?.default).toBe(parseConfig({}).qa_iterations);
  });
});
