/** base × Π(percent / 100), rounded half up to a whole minor unit (BigInt: no precision loss). */
export function applyPercents(base: number, percents: number[]): number {
  let num = BigInt(base);
  let den = 1n;
  for (const p of percents) {
    num *= BigInt(p);
    den *= 100n;
  }
  return Number((num * 2n + den) / (2n * den));
}
