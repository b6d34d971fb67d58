import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** A small Python project on disk for the Custodian's integration tests; returns its root. */
export function makeFixtureRepo(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-locate-"));
  const files: Record<string, string> = {
    "shop/cart.py":
      "class Cart:\n    def add_item(self, item, quantity=1):\n        self.items.append((item, quantity))\n\n    def total_price(self):\n        return sum(i.price * q for i, q in self.items)\n",
    // Long enough that a small change's diff is shorter than the file, as in real code.
    "shop/discount.py": `"""Discount codes.\n\n${"Codes are case sensitive and apply to the whole cart.\n".repeat(12)}"""\n\ndef apply_discount(total, code):\n    if code == 'HALF':\n        return total / 2\n    return total\n`,
    "shop/payment.py":
      "def charge_card(card, amount):\n    if amount <= 0:\n        raise ValueError('amount must be positive')\n    return card.charge(amount)\n",
    "shop/shipping.py": "def shipping_cost(weight):\n    return 5 + weight * 0.5\n",
    "README.md": "# Shop\nA tiny shop: a cart, discounts, payments and shipping.\n",
  };
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

/** The issue the tests ask about: the cart total ignores discount codes. */
export const cartIssue = {
  title: "Cart total_price ignores discount codes",
  body: "When I add an item to the `Cart` and apply the code HALF with `apply_discount`, `total_price` still returns the full price.",
  hints: [],
};

/** The path a Custodian prompt is about, read from its user message (`…file `path`…`). */
export function promptPath(content: string): string {
  return /`([\w/.-]+\.(?:py|md))`/.exec(content)?.[1] ?? "?";
}
