import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../../src/config.js";
import { configJsonSchema, renderConfigSchema } from "../../../../src/app/settings/render-config-schema.js";
import { renderConfigurationDocs } from "../../../../src/app/settings/render-configuration-docs.js";
import { SETTINGS_TABLE } from "../../../../src/app/settings/settings-table.js";

const DOCS = path.resolve(import.meta.dirname, "../../../../docs");
const STALE = "is not what the settings table and the config's schema generate: run `npm run docs:config` and commit what it writes";

describe("the generated configuration docs", () => {
  it("docs/configuration.md and docs/magis.schema.json are the ones the table and the schema generate", () => {
    expect(fs.readFileSync(path.join(DOCS, "configuration.md"), "utf8"), `docs/configuration.md ${STALE}`).toBe(renderConfigurationDocs());
    expect(fs.readFileSync(path.join(DOCS, "magis.schema.json"), "utf8"), `docs/magis.schema.json ${STALE}`).toBe(renderConfigSchema());
  });

  it("name every variable and every key of .github/magis.yml, each key with a description", () => {
    const page = renderConfigurationDocs();
    for (const row of SETTINGS_TABLE) expect(page, row.name).toContain(`| \`${row.name}\` |`);
    const schema = configJsonSchema();
    const keys = Object.keys(parseConfig({})).concat(["model", "test_command", "setup_command"]);
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
