// Carts are lists of line items: { sku, price, quantity }, prices in cents.

/** The total of a cart in cents. */
export function cartTotal(items) {
  let total = 0;
  for (const item of items) {
    total += item.price;
  }
  return total;
}

/** The number of line items in a cart. */
export function itemCount(items) {
  return items.length;
}
