import { describe, expect, it } from "vitest";
import { z } from "zod";
import { jsonModeInstruction, responseFormatFor } from "../../../src/llm/response-format.js";

describe("responseFormatFor", () => {
  it("uses OpenAI's strict form when every field is required", () => {
    const format = responseFormatFor(z.object({ approved: z.boolean(), comment: z.string() }), "qa-review");
    expect(format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "qa-review", strict: true, schema: { required: ["approved", "comment"], additionalProperties: false } },
    });
  });

  it("falls back to a non-strict schema for optional fields and transforms", () => {
    const schema = z.object({ reason: z.string().optional(), size: z.string().transform((s) => s.length) });
    const format = responseFormatFor(schema, "x");
    expect(format.json_schema).toMatchObject({ name: "x", strict: false, schema: { type: "object", required: ["size"] } });
  });

  it("names the format after the prompt, even when two prompts share a schema", () => {
    const schema = z.object({ summary: z.string() });
    expect(responseFormatFor(schema, "a").json_schema.name).toBe("a");
    expect(responseFormatFor(schema, "b").json_schema.name).toBe("b");
    expect(responseFormatFor(schema, "a")).toBe(responseFormatFor(schema, "a"));
  });
});

describe("jsonModeInstruction", () => {
  it("tells the model the JSON Schema its answer must match", () => {
    const text = jsonModeInstruction(z.object({ relevant: z.boolean() }));
    expect(text).toMatch(/^Answer with one JSON object and nothing else/);
    expect(JSON.parse(text.split("\n")[1]!)).toMatchObject({ type: "object", properties: { relevant: { type: "boolean" } }, required: ["relevant"] });
  });
});
