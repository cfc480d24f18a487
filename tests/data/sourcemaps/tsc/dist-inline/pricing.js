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
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoicHJpY2luZy5qcyIsInNvdXJjZVJvb3QiOiIiLCJzb3VyY2VzIjpbIi4uL3NyYy9wcmljaW5nLnRzIl0sIm5hbWVzIjpbXSwibWFwcGluZ3MiOiI7OztBQUFBLGtFQUFrRTtBQUNsRSxtQ0FBcUM7QUFRckM7SUFBQTtRQUNtQixjQUFTLEdBQUcsSUFBSSxHQUFHLEVBQWtCLENBQUM7SUFjekQsQ0FBQztJQVpDLFFBQVEsQ0FBQyxHQUFXLEVBQUUsSUFBWTtRQUNoQyxJQUFJLENBQUMsU0FBUyxDQUFDLEdBQUcsQ0FBQyxHQUFHLEVBQUUsSUFBSSxDQUFDLENBQUM7SUFDaEMsQ0FBQztJQUVELEtBQUssQ0FBQyxLQUFhO1FBQ2pCLElBQUksR0FBRyxHQUFHLENBQUMsQ0FBQztRQUNaLEtBQUssTUFBTSxJQUFJLElBQUksS0FBSyxFQUFFLENBQUM7WUFDekIsTUFBTSxJQUFJLEdBQUcsSUFBSSxDQUFDLFNBQVMsQ0FBQyxHQUFHLENBQUMsSUFBSSxDQUFDLEdBQUcsQ0FBQyxJQUFJLENBQUMsQ0FBQztZQUMvQyxHQUFHLElBQUksSUFBSSxDQUFDLFFBQVEsR0FBRyxJQUFJLENBQUMsU0FBUyxHQUFHLENBQUMsQ0FBQyxHQUFHLElBQUksQ0FBQyxDQUFDO1FBQ3JELENBQUM7UUFDRCxPQUFPLElBQUEsa0JBQVUsRUFBQyxHQUFHLENBQUMsQ0FBQztJQUN6QixDQUFDO0NBQ0Y7O0FBRU0sTUFBTSxRQUFRLEdBQUcsQ0FBQyxNQUFjLEVBQUUsSUFBWSxFQUFVLEVBQUUsQ0FBQyxJQUFBLGtCQUFVLEVBQUMsTUFBTSxHQUFHLENBQUMsQ0FBQyxHQUFHLElBQUksQ0FBQyxDQUFDLENBQUM7QUFBckYsUUFBQSxRQUFRLEdBQVIsUUFBUSxDQUE2RSIsInNvdXJjZXNDb250ZW50IjpbIi8vIEZpeHR1cmUgZm9yIHRoZSBzb3VyY2UtbWFwIHRlc3RzOiBjb21waWxlZCBieSB0c2MgaW50byAuLi9kaXN0LlxuaW1wb3J0IHsgcm91bmRDZW50cyB9IGZyb20gXCIuL21vbmV5XCI7XG5cbmV4cG9ydCBpbnRlcmZhY2UgTGluZSB7XG4gIHNrdTogc3RyaW5nO1xuICBxdWFudGl0eTogbnVtYmVyO1xuICB1bml0UHJpY2U6IG51bWJlcjtcbn1cblxuZXhwb3J0IGNsYXNzIFByaWNlQm9vayB7XG4gIHByaXZhdGUgcmVhZG9ubHkgZGlzY291bnRzID0gbmV3IE1hcDxzdHJpbmcsIG51bWJlcj4oKTtcblxuICBkaXNjb3VudChza3U6IHN0cmluZywgcmF0ZTogbnVtYmVyKTogdm9pZCB7XG4gICAgdGhpcy5kaXNjb3VudHMuc2V0KHNrdSwgcmF0ZSk7XG4gIH1cblxuICB0b3RhbChsaW5lczogTGluZVtdKTogbnVtYmVyIHtcbiAgICBsZXQgc3VtID0gMDtcbiAgICBmb3IgKGNvbnN0IGxpbmUgb2YgbGluZXMpIHtcbiAgICAgIGNvbnN0IHJhdGUgPSB0aGlzLmRpc2NvdW50cy5nZXQobGluZS5za3UpID8/IDA7XG4gICAgICBzdW0gKz0gbGluZS5xdWFudGl0eSAqIGxpbmUudW5pdFByaWNlICogKDEgLSByYXRlKTtcbiAgICB9XG4gICAgcmV0dXJuIHJvdW5kQ2VudHMoc3VtKTtcbiAgfVxufVxuXG5leHBvcnQgY29uc3QgYXBwbHlUYXggPSAoYW1vdW50OiBudW1iZXIsIHJhdGU6IG51bWJlcik6IG51bWJlciA9PiByb3VuZENlbnRzKGFtb3VudCAqICgxICsgcmF0ZSkpO1xuIl19