import { z } from 'zod';
import { isSealed, type SecretBox } from '../platform/secret-box';
import type { Money } from '../suppliers/money';
import { validation } from './errors';
import type { AppliedRate } from './money/pricing';

/**
 * What the engine hands a partner as `fare_source_code` or `rate_key`: the supplier's own id
 * of the offer or rate, sealed (src/platform/secret-box.ts) with the price the partner was
 * shown — the supplier's amount, the partner's price and the rate between them — and until
 * when that price holds. Sealed, the partner can neither read the supplier's amount nor
 * change the price; the engine needs no table of what it showed. A revalidation or rate
 * check seals the price it fixes; a booking made with that code pays it while the supplier's
 * amount is unchanged and the supplier's offer holds.
 */
export interface PricedCode {
  /** The supplier's id of the offer or rate. */
  id: string;
  supplier: Money;
  /** The partner's price, in minor units of the wallet's currency. */
  price: number;
  rate: AppliedRate | null;
  /** Until when the price is fixed (a revalidation's or rate check's); null: shown by a search, not fixed. */
  until: string | null;
  /** The wallet currency `price` is in: a code fixes a price only for a partner whose wallet is in it. */
  currency: string;
}

/** What seals and opens codes for a partner: the key, and the currency of the partner's wallet (PricingDeps has both). */
export interface CodeDeps {
  codes: SecretBox;
  currency: string;
}

const PURPOSE = 'offer-code:v1:';

const Code = z.object({
  id: z.string().min(1),
  supplier: z.object({ amount_minor: z.number().int(), currency: z.string() }),
  price: z.number().int(),
  rate: z.object({ rate: z.object({ amount: z.number().int(), scale: z.number().int() }), rateId: z.number().int() }).nullable(),
  until: z.string().nullable(),
  currency: z.string().optional(),
});

/** A code for a price shown to a partner, in its wallet's currency. */
export const sealCode = (deps: CodeDeps, code: Omit<PricedCode, 'currency'>): string =>
  deps.codes.seal(PURPOSE + JSON.stringify({ ...code, currency: deps.currency }));

/**
 * The supplier's id a partner's code names, and the price sealed in it. A code that is not
 * sealed is a supplier's id as it is (no price fixed); one sealed but not by this engine, or
 * changed, is refused naming `field`. A price sealed in another currency than the partner's
 * wallet (or in none) fixes nothing: the code then names the supplier's offer alone.
 */
export function openCode(deps: CodeDeps, code: string, field: string): { id: string; priced: PricedCode | null } {
  if (!isSealed(code)) return { id: code, priced: null };
  let plain: string;
  try {
    plain = deps.codes.open(code);
  } catch {
    throw validation(field, 'is not one this engine gave, or has been changed; search again');
  }
  const parsed = plain.startsWith(PURPOSE) ? Code.safeParse(safeJson(plain.slice(PURPOSE.length))) : null;
  if (!parsed?.success) throw validation(field, 'is not one this engine gave; search again');
  const { currency, ...priced } = parsed.data;
  return { id: parsed.data.id, priced: currency === deps.currency ? { ...priced, currency } : null };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** How long a fixed price holds when the supplier's offer or quote does not say when it expires. */
export const PRICE_FIXED_MS = 15 * 60_000;

/** Until when a price fixed now holds: the supplier's expiry, or PRICE_FIXED_MS when it gives none. */
export const fixedUntil = (supplierExpiry: string | null, now: Date): string => supplierExpiry ?? new Date(now.getTime() + PRICE_FIXED_MS).toISOString();

/** The price a code fixed, if it still holds for what the supplier now asks. */
export function heldPrice(priced: PricedCode | null, now: Date, supplier: Money): PricedCode | null {
  if (!priced || priced.until === null || Date.parse(priced.until) <= now.getTime()) return null;
  return priced.supplier.amount_minor === supplier.amount_minor && priced.supplier.currency === supplier.currency ? priced : null;
}
