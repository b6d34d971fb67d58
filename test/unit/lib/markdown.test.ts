import { describe, expect, it } from "vitest";
import { codeCell, neutralize, neutralizeMentions } from "../../../src/lib/markdown.js";

describe("neutralizeMentions", () => {
  it("makes user and team mentions inert, keeping how they read", () => {
    expect(neutralizeMentions("@octocat please look, and cc @octo-org/reviewers.")).toBe("@&#8203;octocat please look, and cc @&#8203;octo-org/reviewers.");
    expect(neutralizeMentions("(@Alice-1)\n@bob")).toBe("(@&#8203;Alice-1)\n@&#8203;bob");
  });

  it("leaves e-mail addresses, code spans and fenced code alone", () => {
    const text = "Write to dev@example.com; `@property` and ``a @b``.\n```python\n@dataclass\nclass A: ...\n```\n";
    expect(neutralizeMentions(text)).toBe(text);
  });

  it("leaves links alone, whose targets may hold an @", () => {
    const text = "See [the post](https://medium.com/@alice/post), <https://unpkg.com/@scope/pkg@1.0.0/x.js> and https://www.npmjs.com/package/@types/node.";
    expect(neutralizeMentions(text)).toBe(text);
  });

  it("leaves ~~~ fences and an unclosed fence alone, and reads the prose after a closed one", () => {
    expect(neutralizeMentions("~~~python\n@dataclass\n~~~\nthanks @bob")).toBe("~~~python\n@dataclass\n~~~\nthanks @&#8203;bob");
    expect(neutralizeMentions("hi @bob\n```\n@decorator\n(cut off")).toBe("hi @&#8203;bob\n```\n@decorator\n(cut off");
    expect(neutralizeMentions("````\n```\n@x\n````\n@y")).toBe("````\n```\n@x\n````\n@&#8203;y");
  });

  it("catches mentions a stray or far-off backtick would hide, and ones spelled with an entity", () => {
    expect(neutralizeMentions("Thanks `@alice for this")).toBe("Thanks `@&#8203;alice for this");
    expect(neutralizeMentions("it's `unbalanced and @alice\n\nnext para `x`")).toBe("it's `unbalanced and @&#8203;alice\n\nnext para `x`");
    expect(neutralizeMentions("cc &#64;alice and &commat;bob")).toBe("cc @&#8203;alice and @&#8203;bob");
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
    // Each line break with the blank space and blank lines around it is one space; spaces within a line stay.
    expect(codeCell("  a  \r\n\n  \n\t b  c \n")).toBe("a b  c");
    expect(codeCell("one  line ")).toBe("one  line");
  });
});
