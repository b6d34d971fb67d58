export { cartTotal, itemCount } from "./cart.js";
export { formatPrice } from "./format-price.js";
export { inStock, takeOne } from "./inventory.js";
