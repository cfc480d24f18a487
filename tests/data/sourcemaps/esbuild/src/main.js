// Fixture for the source-map tests: bundled (and minified) by esbuild.
import { checksum } from './checksum.js';

function describeOrder(order) {
  const items = order.items.map((item) => `${item.sku} x${item.quantity}`);
  return `${order.id}: ${items.join(', ')} (${checksum(items.join())})`;
}

export function handleRequest(body) {
  const order = JSON.parse(body);
  return describeOrder(order);
}
