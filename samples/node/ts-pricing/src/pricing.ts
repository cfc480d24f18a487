// Prices a quote line by line. The catalogue is searched linearly for every
// line and every tier is recomputed: CPU on the loop that grows with
// catalogue size x lines, for a result that never changes between requests.
export interface Product {
  sku: string;
  base: number;
  tiers: number[];
}

export function buildCatalogue(size: number): Product[] {
  const products: Product[] = [];
  for (let i = 0; i < size; i++) {
    products.push({ sku: `sku-${i}`, base: (i % 97) + 1, tiers: [1, 0.95, 0.9, 0.85] });
  }
  return products;
}

export function priceQuote(catalogue: Product[], skus: string[]): number {
  let total = 0;
  for (const sku of skus) {
    let unit = 0;
    for (const p of catalogue) {
      if (p.sku !== sku) continue;
      unit = p.base;
      for (const t of p.tiers) if (p.base * t < unit) unit = p.base * t;
    }
    total += unit;
  }
  return Math.round(total * 100) / 100;
}
