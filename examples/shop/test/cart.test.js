import assert from "node:assert/strict";
import { test } from "node:test";
import { cartTotal, formatPrice, inStock } from "../src/index.js";

test("cartTotal counts every unit of an item", () => {
  assert.equal(
    cartTotal([
      { sku: "pen", price: 250, quantity: 3 },
      { sku: "pad", price: 100, quantity: 1 },
    ]),
    850,
  );
});

test("cartTotal counts an item saved without a quantity once", () => {
  assert.equal(cartTotal([{ sku: "pen", price: 250 }]), 250);
});

test("formatPrice always shows two decimals", () => {
  assert.equal(formatPrice(1250), "$12.50");
  assert.equal(formatPrice(-5), "-$0.05");
  assert.equal(formatPrice(300), "$3.00");
});

test("inStock reads the inventory", () => {
  assert.equal(inStock(new Map([["pen", 1]]), "pen"), true);
  assert.equal(inStock(new Map(), "pen"), false);
});
