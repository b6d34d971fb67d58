import { describe, expect, it } from "vitest";
import { OUTLINE_CHARS, WHOLE_FILE_CHARS, outlineFile, summaryInput } from "../../../src/pipeline/locate/outline-file.js";

const PYTHON = [
  '"""Shipping costs for the shop."""',
  "",
  "import math",
  "from shop.cart import Cart",
  "",
  "DEFAULT_RATE = 5",
  "",
  "",
  "class Shipping:",
  '    """Computes what a cart costs to ship."""',
  "",
  "    @staticmethod",
  "    def cost(",
  "        cart: Cart,",
  "        rate: float = DEFAULT_RATE,",
  "    ) -> float:",
  '        """',
  "        The cost of shipping the cart at the rate.",
  "",
  "        More words that the outline leaves out.",
  '        """',
  "        weight = sum(item.weight for item in cart.items)",
  "        return math.ceil(weight * rate)",
  "",
  "",
  "def free_over(total):",
  "    # no docstring here",
  "    return total > 100",
  "",
].join("\n");

describe("outlineFile", () => {
  it("keeps the header, imports, settings and each definition with its decorators, whole signature and docstring's first line", () => {
    expect(outlineFile(PYTHON, "shop/shipping.py")).toBe(
      [
        '"""Shipping costs for the shop."""',
        "import math",
        "from shop.cart import Cart",
        "DEFAULT_RATE = 5",
        "class Shipping:",
        '    """Computes what a cart costs to ship."""',
        "    @staticmethod",
        "    def cost(",
        "        cart: Cart,",
        "        rate: float = DEFAULT_RATE,",
        "    ) -> float:",
        '        """',
        "        The cost of shipping the cart at the rate.",
        "        ...",
        "def free_over(total):",
        "    ...",
      ].join("\n"),
    );
  });

  it("keeps the comment line above a definition in a brace language", () => {
    const ts = ["// Adds the numbers.", "export function add(a: number, b: number): number {", "  return a + b;", "}", ""].join("\n");
    // The body and its closing brace are one run left out.
    expect(outlineFile(ts, "src/add.ts")).toBe(["// Adds the numbers.", "export function add(a: number, b: number): number {", "  ..."].join("\n"));
  });

  it("is null for a file that defines nothing the patterns know", () => {
    expect(outlineFile("x = 1\ny = 2\n", "data.py")).toBeNull();
  });

  it("cuts a long outline to its cap and names what the rest defines", () => {
    const text = Array.from({ length: 600 }, (_, i) => `def handler_${i}(request):\n    """Handles request kind ${i}."""\n    return ${i}\n`).join("\n");
    const outline = outlineFile(text, "handlers.py")!;
    expect(outline.length).toBeLessThan(OUTLINE_CHARS + 2_000);
    expect(outline).toContain("def handler_0(request):");
    expect(outline).toMatch(/… \(the outline goes on; the rest defines: handler_\d+, /);
    expect(outline).not.toContain('"""Handles request kind 599."""');
  });
});

describe("summaryInput", () => {
  it("shows a short file whole, a long one as its outline, and a long one without definitions whole", () => {
    expect(summaryInput(PYTHON, "shop/shipping.py")).toEqual({ kind: "text", input: PYTHON });
    const long = PYTHON + "\n" + "# padding comment line\n".repeat(Math.ceil(WHOLE_FILE_CHARS / 20));
    expect(summaryInput(long, "shop/shipping.py")).toEqual({ kind: "outline", input: outlineFile(long, "shop/shipping.py") });
    const noDefinitions = "value = 1\n".repeat(WHOLE_FILE_CHARS);
    expect(summaryInput(noDefinitions, "data.py")).toEqual({ kind: "text", input: noDefinitions });
  });
});
