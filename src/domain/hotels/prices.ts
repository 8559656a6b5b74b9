import type { PolicyStep, RateQuote, Stay, SupplierHotel, SupplierRate } from '../../suppliers/hotels';
import { pricerFor, type AppliedRate, type Pricer, type PricingDeps } from '../money/pricing';
import { soldOnce, type Sold } from '../search/derived';
import type { Found } from '../search/layer';
import type { Money } from '../../suppliers/money';
import { markupFor } from '../money/markup-rules';
import type { Markup } from '../money/markup';

/** Who a price is for: the partner, and the supplier its rule may name. */
export interface Buyer {
  partnerId: number;
  supplier: string;
}

/** A step of a cancellation timeline at the partner's price: from `from`, cancelling costs `penalty_minor` (wallet currency). */
export interface WalletPolicyStep {
  from: string;
  penalty_minor: number;
}

export interface SellRate extends SupplierRate {
  /** The rate at the partner's price, in the wallet's currency. */
  priceMinor: number;
  /** The rate's supplier amount at that price (what a partner's `rate_key` seals). */
  rate: AppliedRate | null;
}

export interface SellHotel extends Omit<SupplierHotel, 'rates'> {
  rates: SellRate[];
}

/** A rate check at the partner's price; `previousMinor` is the price the rate was found at (the current one when the supplier cannot tell). */
export interface SellRateCheck extends Stay {
  /** The supplier's id of the rate, its amount, and the rate it was priced with. */
  rateId: string;
  supplierTotal: Money;
  fxRate: AppliedRate | null;
  expiresAt: string;
  nationality: string;
  priceMinor: number;
  previousMinor: number;
  policy: WalletPolicyStep[];
}

export const walletPolicy = (pricer: Pricer, timeline: PolicyStep[]): WalletPolicyStep[] =>
  timeline.map((s) => ({ from: s.from, penalty_minor: pricer.minor(s.penalty) }));

/** The markup of a hotel sale to `buyer` made `now` (src/domain/money/markup-rules.ts): resolved once per request. */
export const hotelMarkup = (pricing: PricingDeps, buyer: Buyer, now: Date) => markupFor(pricing, { service: 'hotels', ...buyer, now });

/**
 * A search's results at the partner's prices, and what is made of them (`make`), named by
 * the supplier's answer, `variant` (the request's own filters) and pricing
 * (src/domain/search/derived.ts).
 */
export async function soldSearch<S extends { hotels: SupplierHotel[] }, T>(
  pricing: PricingDeps,
  found: Found<S>,
  now: Date,
  buyer: Buyer,
  variant: string,
  make: (answer: S, sold: (hotels: SupplierHotel[]) => SellHotel[]) => T,
): Promise<Sold<T>> {
  const amounts = (answer: S) => answer.hotels.flatMap((h) => h.rates.map((r) => r.total));
  return soldOnce(pricing, found, amounts, await hotelMarkup(pricing, buyer, now), `${buyer.supplier}:${variant}`, now, (answer, pricer, markup) =>
    make(answer, (hotels) => sellHotelsWith(pricer, markup, hotels)),
  );
}

/** Search results priced with this pricer and markup. */
function sellHotelsWith(pricer: Pricer, markup: Markup, hotels: SupplierHotel[]): SellHotel[] {
  return hotels.map((h) => ({
    ...h,
    rates: h.rates.map((r) => ({ ...r, priceMinor: markup.sell(pricer.minor(r.total)), rate: pricer.rateOf(r.total.currency) })),
  }));
}

export async function sellRateCheck(pricing: PricingDeps, q: RateQuote, now: Date, buyer: Buyer): Promise<SellRateCheck> {
  const pricer = await pricerFor(pricing, [q.total, q.searched_total, ...q.cancellation_timeline.map((s) => s.penalty)], now);
  const markup = await hotelMarkup(pricing, buyer, now);
  const priceMinor = markup.sell(pricer.minor(q.total));
  return {
    hotel_id: q.hotel_id,
    hotel_name: q.hotel_name,
    city_id: q.city_id,
    room_name: q.room_name,
    board: q.board,
    refundable: q.refundable,
    check_in: q.check_in,
    check_out: q.check_out,
    rooms: q.rooms,
    rateId: q.rate_id,
    supplierTotal: q.total,
    fxRate: pricer.rateOf(q.total.currency),
    nationality: q.nationality,
    priceMinor,
    previousMinor: q.searched_total ? markup.sell(pricer.minor(q.searched_total)) : priceMinor,
    policy: walletPolicy(pricer, q.cancellation_timeline),
    expiresAt: q.expires_at,
  };
}
