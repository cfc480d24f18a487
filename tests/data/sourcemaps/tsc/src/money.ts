export function roundCents(value: number): number {
  const cents: number = Math.round(value * 100);
  return cents / 100;
}
