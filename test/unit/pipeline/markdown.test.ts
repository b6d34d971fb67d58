import { describe, expect, it } from "vitest";
import { codeCell, neutralize, neutralizeMentions } from "../../../src/pipeline/report/markdown.js";

describe("neutralizeMentions", () => {
  it("makes user and team mentions inert, keeping how they read", () => {
    expect(neutralizeMentions("@octocat please look, and cc @octo-org/reviewers.")).toBe(
      "@&#8203;octocat please look, and cc @&#8203;octo-org/reviewers.",
    );
    expect(neutralizeMentions("(@Alice-1)\n@bob")).toBe("(@&#8203;Alice-1)\n@&#8203;bob");
  });

  it("leaves e-mail addresses, code spans and fenced code alone", () => {
    const text = "Write to dev@example.com; `@property` and ``a @b``.\n```python\n@dataclass\nclass A: ...\n```\n";
    expect(neutralizeMentions(text)).toBe(text);
  });

  it("is applied by neutralize, after closing references are put in code spans", () => {
    expect(neutralize("@octocat: this fixes #3")).toBe("@&#8203;octocat: this fixes `#3`");
    expect(neutralize(neutralize("@octocat"))).toBe("@&#8203;octocat");
  });
});

describe("codeCell", () => {
  it("keeps a path as written, escaping only what breaks a table row", () => {
    expect(codeCell("packages/@scope/pkg/a|b.ts")).toBe("packages/@scope/pkg/a\\|b.ts");
    expect(codeCell("gpt-4o\n  mini")).toBe("gpt-4o mini");
  });
});
