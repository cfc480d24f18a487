// blocked-loop, in TypeScript: each request prices a quote of 400 lines
// against a 3000-product catalogue on the main thread (src/pricing.ts).
import * as http from "http";
import { buildCatalogue, priceQuote } from "./pricing";

const catalogue = buildCatalogue(3000);
const skus: string[] = [];
for (let i = 0; i < 400; i++) skus.push(`sku-${(i * 7919) % 3000}`);

const server = http.createServer((req, res) => {
  const total = priceQuote(catalogue, skus);
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ total }));
});

server.listen(Number(process.env.PORT) || 0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  console.log(`ts-pricing listening on 127.0.0.1:${port}`);
});
