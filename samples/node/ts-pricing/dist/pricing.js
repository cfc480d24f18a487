"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.buildCatalogue = buildCatalogue;
exports.priceQuote = priceQuote;
function buildCatalogue(size) {
    const products = [];
    for (let i = 0; i < size; i++) {
        products.push({ sku: `sku-${i}`, base: (i % 97) + 1, tiers: [1, 0.95, 0.9, 0.85] });
    }
    return products;
}
function priceQuote(catalogue, skus) {
    let total = 0;
    for (const sku of skus) {
        let unit = 0;
        for (const p of catalogue) {
            if (p.sku !== sku)
                continue;
            unit = p.base;
            for (const t of p.tiers)
                if (p.base * t < unit)
                    unit = p.base * t;
        }
        total += unit;
    }
    return Math.round(total * 100) / 100;
}
//# sourceMappingURL=pricing.js.map