"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.applyTax = exports.PriceBook = void 0;
// Fixture for the source-map tests: compiled by tsc into ../dist.
const money_1 = require("./money");
class PriceBook {
    constructor() {
        this.discounts = new Map();
    }
    discount(sku, rate) {
        this.discounts.set(sku, rate);
    }
    total(lines) {
        let sum = 0;
        for (const line of lines) {
            const rate = this.discounts.get(line.sku) ?? 0;
            sum += line.quantity * line.unitPrice * (1 - rate);
        }
        return (0, money_1.roundCents)(sum);
    }
}
exports.PriceBook = PriceBook;
const applyTax = (amount, rate) => (0, money_1.roundCents)(amount * (1 + rate));
exports.applyTax = applyTax;
//# sourceMappingURL=pricing.js.map