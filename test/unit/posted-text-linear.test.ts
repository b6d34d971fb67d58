import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// The text the bot posts (model prose, issue quotes, paths) goes through the redactor and the Markdown guards inside the
// app's process. Each input below made one of their patterns rescan a long run at every start (seconds at 64k
// characters, minutes at 400k). The child process is killed after a minute, so a regression fails instead of hanging.
describe("the guards on posted text run in linear time", () => {
  it("redacts, neutralizes and builds table cells of 400k-character adversarial texts, with the same results as on short ones", async () => {
    const src = path.resolve(import.meta.dirname, "../../src");
    const code = [
      `import { redactSecrets } from ${JSON.stringify(path.join(src, "lib/redact-secrets.ts"))};`,
      `import { neutralize, codeCell } from ${JSON.stringify(path.join(src, "lib/markdown.ts"))};`,
      `const n = 400_000;`,
      `const out = {`,
      `  sk: redactSecrets("sk-".repeat(n / 3)).length,`,
      `  skDigit: redactSecrets("sk-".repeat(n / 3) + "1"),`,
      `  dots: neutralize("..AA".repeat(n / 4)).length,`,
      `  links: neutralize("](".repeat(n / 2)).length,`,
      `  spaces: codeCell(" ".repeat(n) + "x").length,`,
      `  lines: codeCell("a" + " ".repeat(n) + "\\n" + " ".repeat(n) + "\\n\\n b"),`,
      `};`,
      `console.log(JSON.stringify(out));`,
    ].join("\n");
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
      timeout: 60_000,
      killSignal: "SIGKILL",
    });
    expect(JSON.parse(stdout)).toEqual({ sk: 399_999, skDigit: "[redacted]", dots: 400_000, links: 400_000, spaces: 1, lines: "a b" });
  }, 90_000);
});
