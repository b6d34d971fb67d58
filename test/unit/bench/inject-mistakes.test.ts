import { describe, expect, it } from "vitest";
import { injectMistakes } from "../../../bench/lib/inject-mistakes.js";

const BEFORE = `from .units import convert, scale
import math


class Cart:
    def total(self, items):
        return sum(items)

    @staticmethod
    def rounded(value, digits=2):
        return round(value, digits)

    @cached
    def label(self):
        return "cart"


def describe(items, *rest):
    return ", ".join(items)
`;
const UNITS = `def convert(value, unit="m"):
    return value


def scale(value, factor, *, exact=False):
    return value * factor
`;

/** The extra-argument mistake injected into BEFORE with `added` appended to Cart.total, or null when it has none. */
async function extraArgument(added: string): Promise<{ line: string; where: string } | null> {
  const after = BEFORE.replace("        return sum(items)\n", `        return sum(items)\n\n    def more(self, items):\n${added}`);
  const mistakes = await injectMistakes("shop/cart.py", BEFORE, after, (file) => (file === "shop/units.py" ? UNITS : null));
  const mistake = mistakes.find((m) => m.kind === "extra-argument");
  if (!mistake) return null;
  const line = mistake.text.split("\n").find((l, i) => l !== after.split("\n")[i])!;
  return { line: line.trim(), where: mistake.where };
}

describe("the extra argument bench:diagnostics injects", () => {
  it("goes to a call that already fills every positional parameter of a function the checkout defines", async () => {
    expect(await extraArgument("        return self.total(items)\n")).toEqual({
      line: "return self.total(items, None)",
      where: "line 10: self.total(…) takes 1 positional argument (a method of the file)",
    });
    // A staticmethod keeps its first parameter; a keyword argument stays after the positional ones.
    expect((await extraArgument("        return Cart.rounded(1.5, 1) + self.rounded(2.5, 0, )\n"))?.line).toBe(
      "return Cart.rounded(1.5, 1) + self.rounded(2.5, 0, None, )",
    );
    // An imported function's arity is read from its module; keyword-only parameters do not count.
    expect(await extraArgument("        return scale(items, 2, exact=True)\n")).toEqual({
      line: "return scale(items, 2, None, exact=True)",
      where: "line 10: scale(…) takes 2 positional arguments (imported from shop/units.py)",
    });
    expect((await extraArgument("        return isinstance(items, list)\n"))?.where).toContain("(a builtin)");
  });

  it("leaves calls that could take one more argument alone", async () => {
    // Parameters with defaults left to fill, *args, a decorator that may change the signature, a builtin taking any
    // number, a callee the checkout does not define, a builtin's name the file rebinds.
    for (const call of [
      "convert(items)",
      "describe(items, 1)",
      "self.label()",
      "print(items)",
      "math.floor(items)",
      "(lambda len: len(items))(1)",
      "self.rounded(items)",
    ]) {
      expect(await extraArgument(`        return ${call}\n`), call).toBeNull();
    }
  });
});
