"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
// blocked-loop, in TypeScript: each request prices a quote of 400 lines
// against a 3000-product catalogue on the main thread (src/pricing.ts).
const http = __importStar(require("http"));
const pricing_1 = require("./pricing");
const catalogue = (0, pricing_1.buildCatalogue)(3000);
const skus = [];
for (let i = 0; i < 400; i++)
    skus.push(`sku-${(i * 7919) % 3000}`);
const server = http.createServer((req, res) => {
    const total = (0, pricing_1.priceQuote)(catalogue, skus);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ total }));
});
server.listen(Number(process.env.PORT) || 0, "127.0.0.1", () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    console.log(`ts-pricing listening on 127.0.0.1:${port}`);
});
//# sourceMappingURL=server.js.map