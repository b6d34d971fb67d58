import { describe, expect, it } from "vitest";
import { extractDefinitions } from "../../../src/pipeline/locate/extract-definitions.js";

describe("extractDefinitions", () => {
  it("finds Python classes, functions and methods", () => {
    const text = "class Session(SessionRedirectMixin):\n    def merge_environment_settings(self, url):\n        pass\n\nasync def fetch():\n    pass\n";
    expect(extractDefinitions(text, "requests/sessions.py")).toEqual(["Session", "merge_environment_settings", "fetch"]);
  });

  it("finds TypeScript exports, types and class methods, but not control flow", () => {
    const text = [
      "export interface Options { retries: number }",
      "export type Mode = 'a' | 'b';",
      "export async function createLlm(options: Options) {",
      "  if (options.retries) {",
      "  }",
      "}",
      "export class Client {",
      "  async ask(request: Request): Promise<Answer> {",
      "  }",
      "}",
      "const helper = () => 1;",
    ].join("\n");
    expect(extractDefinitions(text, "src/client.ts")).toEqual(["Options", "Mode", "createLlm", "Client", "helper", "ask"]);
  });
});
