// The costly part: a full sort of a copy for the top n, on every call.
export function rankPrices(prices, n) {
  const sorted = prices.slice().sort((a, b) => a.price - b.price || (a.sku < b.sku ? -1 : 1));
  return sorted.slice(0, n);
}
