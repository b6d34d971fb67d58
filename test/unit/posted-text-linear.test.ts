import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// The text the bot posts (model prose, issue quotes, paths) goes through the redactor, the Markdown guards and the
// splitter that fits it to GitHub's limit inside the app's process. Each input below made one of their patterns rescan
// a long run at every start (seconds at 64k characters, minutes at 400k), or is one the splitter must not slow on (a
// run of section openers, of fences, of blank lines, one line of backticks). The child process is killed after a
// minute, so a regression fails instead of hanging.
describe("the guards on posted text run in linear time", () => {
  it("redacts, neutralizes, builds table cells of and splits 400k-character adversarial texts, with the same results as on short ones", async () => {
    const src = path.resolve(import.meta.dirname, "../../src");
    const code = [
      `import { redactSecrets } from ${JSON.stringify(path.join(src, "lib/redact-secrets.ts"))};`,
      `import { neutralize, codeCell } from ${JSON.stringify(path.join(src, "lib/markdown.ts"))};`,
      `import { splitMarkdown } from ${JSON.stringify(path.join(src, "lib/split-markdown.ts"))};`,
      `const n = 400_000;`,
      `const out = {`,
      `  sk: redactSecrets("sk-".repeat(n / 3)).length,`,
      `  skDigit: redactSecrets("sk-".repeat(n / 3) + "1"),`,
      `  dots: neutralize("..AA".repeat(n / 4)).length,`,
      `  links: neutralize("](".repeat(n / 2)).length,`,
      `  spaces: codeCell(" ".repeat(n) + "x").length,`,
      `  lines: codeCell("a" + " ".repeat(n) + "\\n" + " ".repeat(n) + "\\n\\n b"),`,
      `  splitDetails: splitMarkdown("<details>\\n".repeat(n / 10), { first: 57_000, rest: 64_536 }).length,`,
      `  splitFences: splitMarkdown("\`\`\`\\n~~~\\n".repeat(n / 8), { first: 57_000, rest: 64_536 }).length,`,
      `  splitBlank: splitMarkdown("\\n".repeat(n), { first: 1_024, rest: 1_024 }).length,`,
      `  splitLine: splitMarkdown("\`".repeat(n), { first: 1_024, rest: 1_024 }).length,`,
      `};`,
      `console.log(JSON.stringify(out));`,
    ].join("\n");
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
      timeout: 60_000,
      killSignal: "SIGKILL",
    });
    expect(JSON.parse(stdout)).toEqual({
      sk: 399_999,
      skDigit: "[redacted]",
      dots: 400_000,
      links: 400_000,
      spaces: 1,
      lines: "a b",
      splitDetails: 7,
      splitFences: 7,
      splitBlank: 391,
      splitLine: 391,
    });
  }, 90_000);
});
