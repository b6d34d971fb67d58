import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { environmentOf, readEnvironmentsFile } from "../../../src/eval/read-environments.js";

const docs = path.join(import.meta.dirname, "../../../docs");
let dir = "";
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = "";
});

/** The YAML example of docs/evaluation.md's "Environments per repository and version" section, as a file. */
function sectionExample(): string {
  const text = fs.readFileSync(path.join(docs, "evaluation.md"), "utf8");
  const section = text.slice(text.indexOf("### Environments per repository and version"));
  const block = /```yaml\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error("docs/evaluation.md's --environments section holds no yaml example");
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-environments-docs-"));
  const file = path.join(dir, "example.yml");
  fs.writeFileSync(file, block[1]!);
  return file;
}

describe("docs/evaluation.md's --environments example", () => {
  it("is read as eval reads it, and sets flask up as examples/lite-environments.yml does: into the user site, no venv", () => {
    const shown = environmentOf(readEnvironmentsFile(sectionExample()), { repo: "pallets/flask", version: "2.0" })!;
    const used = environmentOf(readEnvironmentsFile(path.join(docs, "examples/lite-environments.yml")), { repo: "pallets/flask", version: "2.0" })!;
    // The reproductions run python3 with the sandbox's own PATH: what the setup installs must be found by it.
    expect(shown.environment).toEqual(used.environment);
    expect(JSON.stringify(shown)).not.toContain(".venv");
    expect(shown.test_command).toMatch(/^python3 /);
  });
});
