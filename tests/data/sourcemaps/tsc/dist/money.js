"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.roundCents = roundCents;
function roundCents(value) {
    const cents = Math.round(value * 100);
    return cents / 100;
}
//# sourceMappingURL=money.js.map