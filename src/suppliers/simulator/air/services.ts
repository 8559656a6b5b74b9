/**
 * What the airline sells besides the fare: seats (a few rows per cabin, some taken by its
 * other passengers, some free of charge, the rest priced per traveller) and one extra
 * checked bag per traveller and leg. Pure functions of the flights, the cabin and the
 * party, like the fares; which seats this airline's bookings hold is `SeatAssignments`.
 * A service's id names what it is, so a booking can name it without a search kept.
 */
import { stableHash } from '../hotels/inventory';
import { applyPercents } from '../percents';
import type { Cabin } from './inventory';
import type { Leg, Segment } from './schedule';

/** The rows and seat letters each cabin shows in its map. */
const CABIN_LAYOUT: Record<Cabin, { rows: number[]; letters: string }> = {
  first: { rows: [1], letters: 'AF' },
  business: { rows: [2, 3], letters: 'ACDF' },
  premium_economy: { rows: [10, 11], letters: 'ABCDEF' },
  economy: { rows: [20, 21, 22, 23, 24], letters: 'ABCDEF' },
};
/** A paid seat's price before its tier, in minor units (Toman × 100): domestic, and three times abroad. */
const SEAT_BASE_MINOR = 150_000 * 100;
const SEAT_STEP_MINOR = 50_000 * 100;
/** An extra checked bag per leg. */
const BAG_DOMESTIC_MINOR = 400_000 * 100;
const BAG_INTERNATIONAL_MINOR = 1_200_000 * 100;
export const EXTRA_BAG_KG = 23;

export type SeatState = { kind: 'taken' } | { kind: 'free' } | { kind: 'paid'; price_minor: number };

const segmentKey = (s: Segment) => `${s.flight.flight_number}|${s.date}`;

/** How the airline's other passengers left a seat: three in ten taken, two free of charge, the rest priced by tier. */
export function seatState(s: Segment, designator: string, cabin: Cabin): SeatState {
  const h = stableHash(`seat:${segmentKey(s)}:${cabin}:${designator}`);
  if (h % 10 < 3) return { kind: 'taken' };
  if (h % 10 < 5 || cabin === 'business' || cabin === 'first') return { kind: 'free' };
  const price = SEAT_BASE_MINOR + SEAT_STEP_MINOR * (h % 4);
  return { kind: 'paid', price_minor: s.flight.domestic ? price : applyPercents(price, [300]) };
}

export interface SeatOnSale {
  designator: string;
  row: number;
  /** The airline's other passengers' seats, and those of this airline's bookings: not for sale. */
  available: boolean;
  price_minor: number;
  disclosures: string[];
}

export function seatService(legIndex: number, segmentIndex: number, designator: string, traveler: number): string {
  return `seat-${legIndex}-${segmentIndex}-${designator}-${traveler}`;
}

export function bagService(legIndex: number, traveler: number): string {
  return `bag-${legIndex}-${traveler}`;
}

/** A service id read back: what it sells, to whom, where. */
export type ServiceRef =
  | { type: 'seat'; leg_index: number; segment_index: number; designator: string; traveler_index: number }
  | { type: 'baggage'; leg_index: number; traveler_index: number };

export function serviceRef(id: string): ServiceRef | null {
  const seat = /^seat-(\d+)-(\d+)-(\d{1,2}[A-F])-(\d+)$/.exec(id);
  if (seat) return { type: 'seat', leg_index: Number(seat[1]), segment_index: Number(seat[2]), designator: seat[3]!, traveler_index: Number(seat[4]) };
  const bag = /^bag-(\d+)-(\d+)$/.exec(id);
  if (bag) return { type: 'baggage', leg_index: Number(bag[1]), traveler_index: Number(bag[2]) };
  return null;
}

/** The seats of one segment's cabin, row by row. */
export function seatRows(s: Segment, cabin: Cabin, assigned: SeatAssignments): Array<{ row: number; seats: SeatOnSale[] }> {
  const layout = CABIN_LAYOUT[cabin];
  const lastRow = layout.rows[layout.rows.length - 1];
  return layout.rows.map((row) => ({
    row,
    seats: [...layout.letters].map((letter) => {
      const designator = `${row}${letter}`;
      const state = seatState(s, designator, cabin);
      const disclosures = [...(cabin === 'economy' && row === layout.rows[0] ? ['Exit row'] : []), ...(row === lastRow ? ['No recline'] : [])];
      return {
        designator,
        row,
        available: state.kind !== 'taken' && !assigned.holder(s, designator),
        price_minor: state.kind === 'paid' ? state.price_minor : 0,
        disclosures,
      };
    }),
  }));
}

/** The seat a booking may choose on one segment: in the cabin's map, not taken, with its price. */
export function seatOnSale(s: Segment, designator: string, cabin: Cabin, assigned: SeatAssignments): SeatOnSale | null {
  for (const row of seatRows(s, cabin, assigned)) {
    const seat = row.seats.find((x) => x.designator === designator);
    if (seat) return seat;
  }
  return null;
}

export interface BagOnSale {
  service_id: string;
  leg_index: number;
  traveler_index: number;
  price_minor: number;
  segments: Array<[number, number]>;
}

/** One extra checked bag for each traveller on each leg. */
export function bagsOnSale(legs: Leg[], travelers: number): BagOnSale[] {
  return legs.flatMap((leg, leg_index) =>
    Array.from({ length: travelers }, (_, traveler_index) => ({
      service_id: bagService(leg_index, traveler_index),
      leg_index,
      traveler_index,
      price_minor: leg.every((s) => s.flight.domestic) ? BAG_DOMESTIC_MINOR : BAG_INTERNATIONAL_MINOR,
      segments: leg.map((_, segment_index) => [leg_index, segment_index] as [number, number]),
    })),
  );
}

/** Which booking holds each seat chosen on the airline's flights. */
export class SeatAssignments {
  private readonly holders = new Map<string, string>();

  private static key(s: Segment, designator: string): string {
    return `${segmentKey(s)}|${designator}`;
  }

  holder(s: Segment, designator: string): string | undefined {
    return this.holders.get(SeatAssignments.key(s, designator));
  }

  assign(s: Segment, designator: string, pnr: string): void {
    this.holders.set(SeatAssignments.key(s, designator), pnr);
  }

  release(s: Segment, designator: string, pnr: string): void {
    const key = SeatAssignments.key(s, designator);
    if (this.holders.get(key) === pnr) this.holders.delete(key);
  }
}

/** How many of one bag a traveller may add on a leg. */
export const MAX_BAGS = 1;

export interface ChosenService {
  service_id: string;
  quantity: number;
}

/** A refusal: the HTTP status and the error. */
export type ServiceRefusal = { status: 400 | 409 | 422; error: string };

/**
 * The seats and bags chosen with a booking, checked against the offer's legs and travellers
 * and priced; or why not. `seatTaken` (the seat_taken scenario): the first seat chosen was
 * taken meanwhile.
 */
export function servicesAtBooking(
  legs: Leg[],
  cabin: Cabin,
  travelers: Array<{ passenger_type: string }>,
  chosen: ChosenService[],
  assigned: SeatAssignments,
  seatTaken: boolean,
): StoredService[] | ServiceRefusal {
  const invalid = (i: number, message: string): ServiceRefusal => ({ status: 400, error: `invalid booking request: services.${i}: ${message}` });
  const services: StoredService[] = [];
  const seen = new Set<string>();
  for (const [i, c] of chosen.entries()) {
    const ref = serviceRef(c.service_id);
    if (!ref || seen.has(c.service_id)) return invalid(i, ref ? 'chosen twice' : 'not a service of this offer');
    seen.add(c.service_id);
    const traveler = travelers[ref.traveler_index];
    const leg = legs[ref.leg_index];
    if (!traveler || !leg) return invalid(i, 'not a service of this offer');
    if (ref.type === 'baggage') {
      if (c.quantity > MAX_BAGS) return invalid(i, `at most ${MAX_BAGS} of this bag`);
      const bag = bagsOnSale([leg], travelers.length)[0]!;
      services.push({
        service_id: c.service_id,
        type: 'baggage',
        traveler_index: ref.traveler_index,
        leg_index: ref.leg_index,
        segments: leg.map((_, s) => [ref.leg_index, s]),
        quantity: c.quantity,
        total_minor: bag.price_minor * c.quantity,
      });
      continue;
    }
    const segment = leg[ref.segment_index];
    if (!segment) return invalid(i, 'not a service of this offer');
    if (traveler.passenger_type === 'INF') return invalid(i, 'an infant sits on a lap: no seat');
    if (c.quantity !== 1) return invalid(i, 'a seat is sold once');
    const seat = seatOnSale(segment, ref.designator, cabin, assigned);
    if (!seat) return invalid(i, `no seat ${ref.designator} on ${segment.flight.flight_number}`);
    const onSegment = services.filter((s) => s.type === 'seat' && s.leg_index === ref.leg_index && s.segments[0]![1] === ref.segment_index);
    if (onSegment.some((s) => s.traveler_index === ref.traveler_index)) return invalid(i, 'one seat per traveller on each flight');
    if (onSegment.some((s) => s.designator === ref.designator)) return invalid(i, `seat ${ref.designator} chosen twice`);
    if (!seat.available) return { status: 409, error: `seat ${ref.designator} on ${segment.flight.flight_number} is not available` };
    if (seatTaken) return { status: 409, error: `seat ${ref.designator} on ${segment.flight.flight_number} was taken meanwhile: choose another` };
    services.push({
      service_id: c.service_id,
      type: 'seat',
      traveler_index: ref.traveler_index,
      leg_index: ref.leg_index,
      segments: [[ref.leg_index, ref.segment_index]],
      quantity: 1,
      total_minor: seat.price_minor,
      designator: ref.designator,
    });
  }
  return services;
}

/** A seat or bag booked on a booking; its `leg_index` follows its leg when a change renumbers the legs. */
export interface StoredService {
  service_id: string;
  type: 'seat' | 'baggage';
  traveler_index: number;
  leg_index: number;
  segments: Array<[number, number]>;
  quantity: number;
  total_minor: number;
  designator?: string;
}
