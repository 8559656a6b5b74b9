import { mapSeatPrices, type FlightAfterSale, type SeatMap, type SeatMapOf } from '../../suppliers/flight-after-sale';
import type { FlightSupplier } from '../../suppliers/flights';
import { markupFor } from '../money/markup-rules';
import { openCode } from '../offer-codes';
import { pricerFor, type PricingDeps } from '../money/pricing';
import { supplierRead } from '../supplier-reads';

/** A seat's price to one traveller as a partner sees it: in the wallet's currency, with the markup (0: free). */
export interface PricedSeatPrice {
  service_id: string;
  traveler_index: number;
  price_minor: number;
}

export type PricedSeatMap = SeatMapOf<PricedSeatPrice>;

/**
 * GET /api/flights/seat_map/: each segment's seats for the fare, priced as flights are (the
 * airline's price at today's rate, with the flights markup; a free seat stays free). A seat
 * is chosen when the flight is booked (air_booking `services`), and cannot be taken back.
 */
export async function seatMaps(
  deps: { supplier: FlightSupplier; afterSale: FlightAfterSale; pricing: PricingDeps },
  partnerId: number,
  fareSourceCode: string,
  now: Date,
): Promise<{ currency: string; maps: PricedSeatMap[] }> {
  const { id } = openCode(deps.pricing, fareSourceCode, 'fare_source_code');
  const maps: SeatMap[] = await supplierRead('fare_source_code', () => deps.afterSale.seatMaps(id));
  const prices = maps.flatMap((m) => m.cabins.flatMap((c) => c.rows.flatMap((r) => r.seats.flatMap((s) => s.prices.map((p) => p.price)))));
  const pricer = await pricerFor(deps.pricing, prices, now);
  const markup = await markupFor(deps.pricing, { service: 'flights', partnerId, supplier: deps.supplier.name, now });
  const sell = (minor: number) => (minor === 0 ? 0 : markup.price(minor).sellMinor);
  return {
    currency: deps.pricing.currency,
    maps: maps.map((m) => mapSeatPrices(m, (p) => ({ service_id: p.service_id, traveler_index: p.traveler_index, price_minor: sell(pricer.minor(p.price)) }))),
  };
}
