import type { Db } from '../db/client';
import type { Money } from '../suppliers/money';
import { DomainError } from './errors';

/** What pricing a supplier's amounts for a partner needs: the wallet's currency and where the rates are. */
export interface PricingDeps {
  db: Db;
  currency: string;
}

/** Supplier amounts in the wallet's currency, with the rates of one moment. */
export interface Pricer {
  readonly currency: string;
  /** The amount in minor units of the wallet's currency. */
  minor(amount: Money): number;
}

/**
 * A pricer for the currencies `amounts` are in. An amount in the wallet's own currency is
 * taken as it is; one in any other currency is refused, naming the currency, until a rate
 * for it is known: a sale is never priced with a guess.
 */
export async function pricerFor(deps: PricingDeps, amounts: Iterable<Money | null>, _now: Date): Promise<Pricer> {
  for (const amount of amounts) {
    if (amount && amount.currency !== deps.currency) {
      throw new DomainError('conflict', `the supplier prices in ${amount.currency} and there is no exchange rate from ${amount.currency} to ${deps.currency}`);
    }
  }
  return {
    currency: deps.currency,
    minor: (amount) => {
      if (amount.currency !== deps.currency) throw new Error(`no rate loaded for ${amount.currency}`);
      return amount.amount_minor;
    },
  };
}
