/** Shows an amount in cents as dollars, e.g. 1250 -> "$12.50". */
export function formatPrice(cents) {
  const sign = cents < 0 ? "-" : "";
  const dollars = Math.abs(cents) / 100;
  return `${sign}$${dollars}`;
}
