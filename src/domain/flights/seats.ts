import type { SeatMap } from '../../suppliers/flight-after-sale';
import type { FlightSupplier } from '../../suppliers/flights';
import type { FlightAfterSale } from '../../suppliers/flight-after-sale';
import { markupFor } from '../money/markup-rules';
import { openCode } from '../offer-codes';
import { pricerFor, type PricingDeps } from '../money/pricing';
import { supplierRead } from '../supplier-reads';

/** A seat as a partner sees it: for sale to each traveller at a price in the wallet's currency (none: not for sale). */
export interface PricedSeat {
  designator: string;
  disclosures: string[];
  prices: Array<{ serviceId: string; travelerIndex: number; priceMinor: number }>;
}

export interface PricedSeatMap {
  legIndex: number;
  segmentIndex: number;
  cabins: Array<{ cabin: string; rows: Array<{ seats: PricedSeat[] }> }>;
}

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
    maps: maps.map((m) => ({
      legIndex: m.leg_index,
      segmentIndex: m.segment_index,
      cabins: m.cabins.map((c) => ({
        cabin: c.cabin,
        rows: c.rows.map((r) => ({
          seats: r.seats.map((s) => ({
            designator: s.designator,
            disclosures: s.disclosures,
            prices: s.prices.map((p) => ({ serviceId: p.service_id, travelerIndex: p.traveler_index, priceMinor: sell(pricer.minor(p.price)) })),
          })),
        })),
      })),
    })),
  };
}
