import type { Db } from '../../db/client';
import type { SecretBox } from '../../platform/secret-box';
import type { Money } from '../../suppliers/money';
import { readCache } from '../read-cache';
import { convert, rateFor, type ExactRate, type RateToUse } from './fx';

/** What pricing a supplier's amounts for a partner needs: the wallet's currency, where the rates are, and how old a rate may be. */
export interface PricingDeps {
  db: Db;
  currency: string;
  /** The currency the engine's own catalogue is priced in (CURRENCY): converted into `currency` for another wallet. */
  catalogueCurrency: string;
  /** A rate older than this refuses the sale (FX_RATE_MAX_AGE_HOURS). */
  maxRateAgeMs: number;
  /** What the prices shown to partners are sealed with, in their codes (src/domain/offer-codes.ts). */
  codes: SecretBox;
}

/** Pricing into another wallet's currency: a partner's own (Partner.currency), or an order's. */
export const pricingIn = (deps: PricingDeps, currency: string): PricingDeps => (currency === deps.currency ? deps : { ...deps, currency });

/** The rate an amount was priced with: null for the wallet's own currency. */
export interface AppliedRate {
  rate: ExactRate;
  rateId: number;
}

/** Supplier amounts in the wallet's currency, with the rates of one moment. */
export interface Pricer {
  readonly currency: string;
  /** The amount in minor units of the wallet's currency. */
  minor(amount: Money): number;
  /** The rate `minor` applies to an amount of `currency`. */
  rateOf(currency: string): AppliedRate | null;
}

/**
 * A pricer for the currencies `amounts` are in: each converted with its current rate
 * (src/domain/money/fx.ts), once, rounded half away from zero. A currency without a rate, or with
 * one older than the bound, refuses the sale naming the currency (`currency_unavailable`):
 * a price is never a guess.
 */
export async function pricerFor(deps: PricingDeps, amounts: Iterable<Money | null>, now: Date, readRate: RateReader = currentRate): Promise<Pricer> {
  const rates = new Map<string, AppliedRate>();
  for (const amount of amounts) {
    if (!amount || amount.currency === deps.currency || rates.has(amount.currency)) continue;
    rates.set(amount.currency, await readRate(deps, amount.currency, now));
  }
  return pricerWith(deps.currency, rates);
}

/** How a pricer reads the rate of a currency into the wallet's (src/domain/money/fx.ts, rateFor). */
type RateReader = (deps: PricingDeps, currency: string, now: Date) => Promise<AppliedRate>;

const currentRate: RateReader = async (deps, currency, now) => {
  const found = await rateFor(deps.db, { from: currency, to: deps.currency, now, maxAgeMs: deps.maxRateAgeMs });
  return { rate: found.rate, rateId: found.rateId! };
};

/** A pricer with these rates: the ones a price was fixed with, or the current ones. */
export function pricerWith(currency: string, rates: Map<string, AppliedRate>): Pricer {
  return {
    currency,
    minor: (amount) => {
      if (amount.currency === currency) return amount.amount_minor;
      const applied = rates.get(amount.currency);
      if (!applied) throw new Error(`no rate loaded for ${amount.currency}`);
      return convert({ amountMinor: amount.amount_minor, from: amount.currency, to: currency, rate: applied.rate });
    },
    rateOf: (currency) => rates.get(currency) ?? null,
  };
}

/** How long a search reuses a rate it read: a price shown in a search is fixed only by the rate check that follows it. */
const SEARCH_RATE_TTL_MS = 5_000;
const searchRates = readCache({ max: 1_000, ttlMs: SEARCH_RATE_TTL_MS });

/**
 * A pricer for a search's answer: as `pricerFor`, its rates read at most every few seconds
 * per process, each still refused once older than the bound.
 */
export const searchPricerFor = (deps: PricingDeps, amounts: Iterable<Money | null>, now: Date) => pricerFor(deps, amounts, now, searchRate);

const searchRate: RateReader = async (deps, currency, now) => {
  const read = () => searchRates.read(deps.db, `${currency}:${deps.currency}`, () => datedRate(deps, currency, now));
  let found = await read();
  // Kept while it was current, and now past the bound: read again, which refuses it if nothing newer came.
  if (found.setAt && now.getTime() - found.setAt.getTime() > deps.maxRateAgeMs) {
    searchRates.forget(deps.db);
    found = await read();
  }
  return found.applied;
};

async function datedRate(deps: PricingDeps, currency: string, now: Date): Promise<{ applied: AppliedRate; setAt: RateToUse['setAt'] }> {
  const found = await rateFor(deps.db, { from: currency, to: deps.currency, now, maxAgeMs: deps.maxRateAgeMs });
  return { applied: { rate: found.rate, rateId: found.rateId! }, setAt: found.setAt };
}
