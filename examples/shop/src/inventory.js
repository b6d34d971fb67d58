/** Whether the inventory holds at least one unit of the SKU. */
export function inStock(inventory, sku) {
  return (inventory.get(sku) ?? 0) > 0;
}

/** Takes one unit of a SKU out of the inventory; throws when none is left. */
export function takeOne(inventory, sku) {
  if (!inStock(inventory, sku)) throw new Error(`${sku} is out of stock`);
  inventory.set(sku, inventory.get(sku) - 1);
}
