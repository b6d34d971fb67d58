import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { AGENTS } from "../../src/config.js";
import { parseJsonLeniently } from "../../src/llm/parse-json.js";
import { listPrompts, loadPrompt, renderPrompt } from "../../src/llm/prompts.js";

const fixtures = fileURLToPath(new URL("../fixtures/prompts", import.meta.url));
const names = listPrompts();

describe("every prompt file in prompts/", () => {
  it("exists for each step that has been written so far", () => {
    expect(names.length).toBeGreaterThan(0);
  });

  // Prompts answered in text (a SEARCH/REPLACE block, a script), not in JSON.
  const TEXT_ANSWERS = new Set(["developer-write-code", "developer-write-reproduction"]);
  for (const name of names) {
    it(`${name} renders with its declared variables and shows its answer format`, () => {
      const prompt = loadPrompt(name);
      expect(AGENTS).toContain(prompt.agent);
      expect(name.startsWith(`${prompt.agent}-`), `${name} should start with its agent's name`).toBe(true);
      const vars = Object.fromEntries(prompt.variables.map((v) => [v, `<<${v}>>`]));
      const rendered = renderPrompt(prompt, vars);
      const text = `${rendered.system}\n${rendered.user}`;
      for (const v of prompt.variables) expect(text).toContain(`<<${v}>>`);
      expect(text).not.toMatch(/\{\{\s*\w+\s*\}\}/);
      expect(rendered.system.length).toBeGreaterThan(0);
      const format = rendered.user.split(/^## Answer format\s*$/m)[1];
      expect(format, `${name} needs a "## Answer format" section in its user message`).toBeDefined();
      // A text answer's examples are held to its reader by prompt-examples.test.ts.
      if (TEXT_ANSWERS.has(name)) return;
      const example = parseJsonLeniently(format!);
      expect(example.ok, `${name}: the answer format example is not valid JSON`).toBe(true);
    });
  }
});

describe("loading and rendering", () => {
  const judge = () => loadPrompt("judge-file", { dir: fixtures });

  it("splits the system and user messages and fills the placeholders once", () => {
    const rendered = renderPrompt(judge(), { path: "a.ts", summary: "Has {{path}} in it" });
    expect(rendered.system).toBe("You judge whether a file matters for an issue.");
    expect(rendered.user).toMatch(/^File `a\.ts`:\nHas \{\{path\}\} in it\n\n## Answer format/);
  });

  it("caches a loaded file", () => {
    expect(judge()).toBe(judge());
  });

  it("fails loudly on a missing or an unknown variable, naming prompt and variable", () => {
    expect(() => renderPrompt(judge(), { path: "a.ts" })).toThrow('Prompt "judge-file": variable "summary" is missing.');
    expect(() => renderPrompt(judge(), { path: "a.ts", summary: "s", extra: 1 })).toThrow(
      /Prompt "judge-file": variable "extra" is not one of its variables \(path, summary\)/,
    );
  });

  it("rejects templates whose placeholders differ from the declared variables", () => {
    expect(() => loadPrompt("undeclared-placeholder", { dir: fixtures })).toThrow(/Prompt "undeclared-placeholder" .*placeholder \{\{path\}\} is not declared/);
    expect(() => loadPrompt("unused-variable", { dir: fixtures })).toThrow(
      /Prompt "unused-variable" .*variable path is declared but the template never uses it/,
    );
  });

  it("rejects files without the two headings or with an unknown agent", () => {
    expect(() => loadPrompt("no-sections", { dir: fixtures })).toThrow(/Prompt "no-sections" .*"# System" heading followed by a "# User" heading/);
    expect(() => loadPrompt("unknown-agent", { dir: fixtures })).toThrow(/Prompt "unknown-agent" .*"agent" must be one of custodian, manager, developer, qa/);
    expect(() => loadPrompt("text-before-system", { dir: fixtures })).toThrow(/Prompt "text-before-system" .*text before "# System" would be lost/);
  });

  it("names the known prompts when asked for one that does not exist", () => {
    expect(() => loadPrompt("nope", { dir: fixtures })).toThrow(/Prompt "nope" does not exist: .*Known prompts: judge-file, no-sections/);
    expect(() => loadPrompt("../etc/passwd")).toThrow(/is not a file name in prompts/);
  });
});
