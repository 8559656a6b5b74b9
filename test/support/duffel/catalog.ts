/// <reference types="@duffel/api" />
import { createHash } from 'node:crypto';
import type { Offer, OfferAvailableServiceBaggage, Order, OrderService, SeatMap, SeatMapCabinRow, SeatMapCabinRowSectionElement } from '@duffel/api/types';
import { formatMinor, fromGbp, parseMinor } from './money';

/**
 * What Duffel Airways sells besides the fare: a checked bag per passenger with the offer, seats
 * on a seat map, and checked bags after booking. Every id is derived from what it sells, so an
 * offer read twice sells the same services and an order names them again.
 */

/** A service for sale, as an order's `services` takes it: what it is, for whom and where, and its price. */
export interface ServiceForSale {
  id: string;
  type: 'baggage' | 'seat';
  passenger_ids: string[];
  segment_ids: string[];
  maximum_quantity: number;
  total_minor: number;
  currency: string;
  metadata: OrderService['metadata'];
}

/** A Duffel-like id that is the same for the same key. */
const stableId = (prefix: string, key: string) => `${prefix}_0000${createHash('sha256').update(key).digest('hex').slice(0, 22)}`;

const CHECKED_BAG = { type: 'checked', maximum_weight_kg: 23, maximum_height_cm: null, maximum_length_cm: null, maximum_depth_cm: null } as const;

const bagPassengers = (passengers: Array<{ id: string; type?: string | null }>) => passengers.filter((p) => p.type !== 'infant_without_seat');

/** One checked bag per passenger with a seat, over every segment of the offer: 20 GBP. */
export function offerBags(offer: Pick<Offer, 'id' | 'passengers' | 'slices' | 'total_currency'>): OfferAvailableServiceBaggage[] {
  const currency = offer.total_currency;
  return bagPassengers(offer.passengers).map((p) => ({
    id: stableId('ase', `${offer.id}|bag|${p.id}`),
    type: 'baggage',
    maximum_quantity: 1,
    passenger_ids: [p.id],
    segment_ids: offer.slices.flatMap((s) => s.segments.map((seg) => seg.id)),
    total_amount: formatMinor(fromGbp(20, currency), currency),
    total_currency: currency,
    metadata: { ...CHECKED_BAG },
  }));
}

/** Checked bags an issued order may still add: up to two per passenger with a seat, 30 GBP each. */
export function orderBags(order: Pick<Order, 'id' | 'passengers' | 'slices' | 'total_currency' | 'services'>): OfferAvailableServiceBaggage[] {
  const currency = order.total_currency;
  return bagPassengers(order.passengers)
    .map((p): OfferAvailableServiceBaggage => {
      const id = stableId('ase', `${order.id}|bag|${p.id}`);
      const booked = order.services.filter((s) => s.id === id).reduce((sum, s) => sum + s.quantity, 0);
      return {
        id,
        type: 'baggage',
        maximum_quantity: 2 - booked,
        passenger_ids: [p.id],
        segment_ids: order.slices.flatMap((s) => s.segments.map((seg) => seg.id)),
        total_amount: formatMinor(fromGbp(30, currency), currency),
        total_currency: currency,
        metadata: { ...CHECKED_BAG },
      };
    })
    .filter((s) => s.maximum_quantity > 0);
}

const COLUMNS = [
  ['A', 'B', 'C'],
  ['D', 'E', 'F'],
] as const;
const ROWS = 8;
/** The row after which an exit row runs across the cabin. */
const EXIT_AFTER_ROW = 4;

/** A seat's price in pounds by row and column: extra legroom at the front and by the exit, then window and aisle; middle seats free. */
function seatPrice(row: number, column: string): { gbp: number; name: string; disclosures: string[] } {
  if (row <= 2) return { gbp: 25, name: 'Extra legroom seat', disclosures: [] };
  if (row === EXIT_AFTER_ROW + 1) return { gbp: 25, name: 'Exit row seat', disclosures: ['Do not seat children in exit row seats'] };
  if (column === 'B' || column === 'E') return { gbp: 0, name: 'Standard seat', disclosures: ['No recline'] };
  return { gbp: 8, name: 'Standard seat', disclosures: [] };
}

/** Seats the airline never sells on this map, the same for every segment: about one in six. */
const blocked = (row: number, column: string) => (row * 7 + column.charCodeAt(0)) % 6 === 0;

/**
 * The seat maps of an offer, one per segment. A fare without advance seat selection (Basic)
 * has none, as Duffel answers an empty list when the airline sells no seats. A seat taken
 * (`taken`: `segment_id|designator`) has no services.
 */
export function seatMapsOf(offer: Pick<Offer, 'id' | 'passengers' | 'slices' | 'total_currency'>, taken: ReadonlySet<string>): SeatMap[] {
  const currency = offer.total_currency;
  const seated = bagPassengers(offer.passengers);
  return offer.slices.flatMap((slice) => {
    if (slice.conditions.advance_seat_selection === false) return [];
    return slice.segments.map((segment): SeatMap => {
      const rows: SeatMapCabinRow[] = [];
      for (let row = 1; row <= ROWS; row++) {
        rows.push({
          sections: COLUMNS.map((section) => ({
            elements: section.map((column): SeatMapCabinRowSectionElement => {
              const designator = `${row}${column}`;
              const price = seatPrice(row, column);
              const free = !blocked(row, column) && !taken.has(`${segment.id}|${designator}`);
              return {
                type: 'seat',
                designator,
                name: price.name,
                disclosures: price.disclosures,
                available_services: free
                  ? seated.map((p) => ({
                      id: stableId('ase', `${offer.id}|seat|${segment.id}|${designator}|${p.id}`),
                      passenger_id: p.id,
                      total_amount: formatMinor(fromGbp(price.gbp, currency), currency),
                      total_currency: currency,
                    }))
                  : [],
              };
            }),
          })),
        });
        if (row === EXIT_AFTER_ROW) rows.push({ sections: COLUMNS.map(() => ({ elements: [{ type: 'exit_row' }] })) });
      }
      return {
        id: stableId('sea', `${offer.id}|${segment.id}`),
        slice_id: slice.id,
        segment_id: segment.id,
        cabins: [{ deck: 0, cabin_class: segment.passengers[0]?.cabin_class ?? 'economy', aisles: 1, wings: { first_row_index: 3, last_row_index: 6 }, rows }],
      };
    });
  });
}

/** Every service an offer sells, by id: its bags and its seats. */
export function offerServicesById(
  offer: Pick<Offer, 'id' | 'passengers' | 'slices' | 'total_currency'>,
  taken: ReadonlySet<string>,
): Map<string, ServiceForSale> {
  const byId = new Map<string, ServiceForSale>();
  for (const bag of offerBags(offer)) byId.set(bag.id, bagForSale(bag));
  for (const map of seatMapsOf(offer, taken)) {
    for (const row of map.cabins.flatMap((c) => c.rows)) {
      for (const element of row.sections.flatMap((s) => s.elements)) {
        if (element.type !== 'seat' && element.type !== 'restricted_seat_general') continue;
        for (const service of element.available_services) {
          byId.set(service.id, {
            id: service.id,
            type: 'seat',
            passenger_ids: [service.passenger_id],
            segment_ids: [map.segment_id],
            maximum_quantity: 1,
            total_minor: parseMinor(service.total_amount, service.total_currency)!,
            currency: service.total_currency,
            metadata: { designator: element.designator, disclosures: element.disclosures, name: element.name ?? null },
          });
        }
      }
    }
  }
  return byId;
}

export const bagForSale = (bag: OfferAvailableServiceBaggage): ServiceForSale => ({
  id: bag.id,
  type: 'baggage',
  passenger_ids: bag.passenger_ids,
  segment_ids: bag.segment_ids,
  maximum_quantity: bag.maximum_quantity,
  total_minor: parseMinor(bag.total_amount, bag.total_currency)!,
  currency: bag.total_currency,
  metadata: bag.metadata,
});
