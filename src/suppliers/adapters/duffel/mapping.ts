import type { Offer as DuffelOffer, Order as DuffelOrder, OfferSliceSegment, OrderService } from '@duffel/api/types';
import { parseSupplierAmount } from '../../../platform/currency';
import { SupplierUnavailableError } from '../../errors';
import type { BookedService } from '../../flight-after-sale';
import type { Cabin, FlightOrder, Leg, Money, Offer, PassengerType } from '../../flights';
import { localToUtc } from './time';

/** Duffel's offers and orders as the flights port states them. */

/** Duffel states amounts as decimal strings of their currency; a malformed one is the supplier's failure, not ours. */
export function moneyOf(amount: string, currency: string): Money {
  try {
    return { amount_minor: parseSupplierAmount(amount, currency), currency };
  } catch (err) {
    throw new SupplierUnavailableError(`Duffel stated an amount the engine cannot keep (${amount} ${currency}): ${(err as Error).message}`);
  }
}

/** An offer as a search answers it (without the services for sale). */
export type SearchedOffer = Omit<DuffelOffer, 'available_services'>;

/** Ages the search asks children and infants at: an offer request needs an age for each, and a search has none yet. */
export const SEARCH_AGES = { child: 8, infant: 1 } as const;

export const typeOfPassenger = (p: { type?: string | null; age?: number | null }): PassengerType => {
  if (p.type === 'adult') return 'ADT';
  if (p.type === 'child') return 'CHD';
  if (p.type === 'infant_without_seat') return 'INF';
  const age = p.age ?? 30;
  return age < 2 ? 'INF' : age < 12 ? 'CHD' : 'ADT';
};

export function segmentOf(seg: OfferSliceSegment | DuffelOrder['slices'][number]['segments'][number], cabin: Cabin) {
  const first = seg.passengers[0] as { fare_basis_code?: string } | undefined;
  return {
    flight_number: `${seg.marketing_carrier.iata_code ?? ''}${seg.marketing_carrier_flight_number}`,
    airline: seg.marketing_carrier.iata_code ?? seg.marketing_carrier.name,
    airline_name: seg.marketing_carrier.name,
    origin: seg.origin.iata_code ?? seg.origin.id,
    destination: seg.destination.iata_code ?? seg.destination.id,
    departure: localToUtc(seg.departing_at, seg.origin.time_zone),
    arrival: localToUtc(seg.arriving_at, seg.destination.time_zone),
    cabin,
    // The fare basis code starts with the booking class.
    booking_class: first?.fare_basis_code?.slice(0, 1) ?? '',
  };
}

export function legsOf(slices: Array<{ segments: Array<OfferSliceSegment | DuffelOrder['slices'][number]['segments'][number]> }>, cabin: Cabin): Leg[] {
  return slices.map((s) => ({ segments: s.segments.map((seg) => segmentOf(seg, cabin)) }));
}

export const cabinOf = (o: { slices: Array<{ segments: Array<{ passengers: Array<{ cabin_class: Cabin }> }> }> }): Cabin =>
  o.slices[0]?.segments[0]?.passengers[0]?.cabin_class ?? 'economy';

export const fareFamilyOf = (o: {
  slices: Array<{ fare_brand_name: string | null; segments: Array<{ passengers: Array<{ cabin_class_marketing_name: string }> }> }>;
}) => o.slices[0]?.fare_brand_name ?? o.slices[0]?.segments[0]?.passengers[0]?.cabin_class_marketing_name ?? 'standard';

/** Duffel gives the offer's base and tax as totals: each passenger takes an equal share, the first type the remainder. */
function breakdownOf(o: SearchedOffer, total: Money): Offer['price_breakdown'] {
  const counts = new Map<PassengerType, number>();
  for (const p of o.passengers) counts.set(typeOfPassenger(p), (counts.get(typeOfPassenger(p)) ?? 0) + 1);
  const base = moneyOf(o.base_amount, o.base_currency).amount_minor;
  const tax = o.tax_amount && o.tax_currency === total.currency ? moneyOf(o.tax_amount, o.tax_currency).amount_minor : total.amount_minor - base;
  const people = o.passengers.length || 1;
  const lines = [...counts].map(([passenger_type, count]) => ({
    passenger_type,
    count,
    base_minor: Math.floor(base / people) * count,
    tax_minor: Math.floor(tax / people) * count,
  }));
  if (lines[0]) {
    lines[0].base_minor += base - lines.reduce((s, l) => s + l.base_minor, 0);
    lines[0].tax_minor += tax - lines.reduce((s, l) => s + l.tax_minor, 0);
  }
  return lines;
}

export function offerOf(o: SearchedOffer): Offer {
  const total = moneyOf(o.total_amount, o.total_currency);
  const cabin = cabinOf(o);
  return {
    offer_id: o.id,
    total,
    expires_at: o.expires_at,
    refundable: o.conditions.refund_before_departure?.allowed ?? false,
    fare_family: fareFamilyOf(o),
    cabin,
    legs: legsOf(o.slices, cabin),
    price_breakdown: breakdownOf(o, total),
    seats_left: null,
  };
}

export const penaltyOf = (c: { allowed: boolean; penalty_amount: string | null; penalty_currency: string | null } | null): Money | null =>
  c?.allowed && c.penalty_amount && c.penalty_currency ? moneyOf(c.penalty_amount, c.penalty_currency) : null;

const isTicket = (d: { type: string }) => d.type === 'electronic_ticket';

export function orderOf(o: DuffelOrder, now: Date): FlightOrder {
  const cabin = cabinOf(o);
  const total = moneyOf(o.total_amount, o.total_currency);
  const paid = o.payment_status.paid_at !== null && o.payment_status.paid_at !== undefined;
  const deadline = o.payment_status.payment_required_by ?? null;
  const tickets = (o.documents ?? [])
    .filter(isTicket)
    .flatMap((d) => d.passenger_ids.map((id) => ({ traveler_index: o.passengers.findIndex((p) => p.id === id), ticket_number: d.unique_identifier })));
  let status: FlightOrder['status'];
  if (o.cancelled_at) status = paid ? 'refunded' : deadline && Date.parse(deadline) <= Date.parse(o.cancelled_at) ? 'expired' : 'cancelled';
  else if (paid) status = tickets.length ? 'issued' : 'paid';
  else status = deadline && Date.parse(deadline) <= now.getTime() ? 'expired' : 'held';
  return {
    order_id: o.id,
    booking_reference: o.booking_reference,
    status,
    payment_required_by: deadline ?? now.toISOString(),
    total,
    fare_family: fareFamilyOf(o),
    refundable: o.conditions.refund_before_departure?.allowed ?? false,
    refund_penalty: penaltyOf(o.conditions.refund_before_departure),
    cabin,
    legs: legsOf(o.slices, cabin),
    tickets: tickets.filter((t) => t.traveler_index >= 0),
    ...(o.services?.length ? { services: o.services.map((s) => bookedServiceOf(s, o)) } : {}),
  };
}

/** Where a service applies, as `[leg_index, segment_index]` pairs in the offer's or order's slices. */
export function segmentPairs(segmentIds: string[], slices: Array<{ segments: Array<{ id: string }> }>): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  slices.forEach((slice, leg) =>
    slice.segments.forEach((seg, index) => {
      if (segmentIds.includes(seg.id)) pairs.push([leg, index]);
    }),
  );
  return pairs;
}

/** A seat or bag on an order, for the traveller it is for (by the order's passenger order). */
export function bookedServiceOf(s: OrderService, o: Pick<DuffelOrder, 'passengers' | 'slices'>): BookedService {
  const designator = s.type === 'seat' && s.metadata && 'designator' in s.metadata ? s.metadata.designator : undefined;
  return {
    service_id: s.id,
    type: s.type,
    traveler_index: Math.max(
      0,
      o.passengers.findIndex((p) => p.id === s.passenger_ids[0]),
    ),
    segments: segmentPairs(s.segment_ids, o.slices),
    quantity: s.quantity,
    total: moneyOf(s.total_amount, s.total_currency),
    ...(designator ? { designator } : {}),
  };
}
