// Fixture for the source-map tests: compiled by tsc into ../dist.
import { roundCents } from "./money";

export interface Line {
  sku: string;
  quantity: number;
  unitPrice: number;
}

export class PriceBook {
  private readonly discounts = new Map<string, number>();

  discount(sku: string, rate: number): void {
    this.discounts.set(sku, rate);
  }

  total(lines: Line[]): number {
    let sum = 0;
    for (const line of lines) {
      const rate = this.discounts.get(line.sku) ?? 0;
      sum += line.quantity * line.unitPrice * (1 - rate);
    }
    return roundCents(sum);
  }
}

export const applyTax = (amount: number, rate: number): number => roundCents(amount * (1 + rate));
