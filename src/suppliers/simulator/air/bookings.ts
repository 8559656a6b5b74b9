/**
 * The airline's bookings (PNRs), in memory: booked ones take seats out of the seat book and
 * expire at their ticket time limit (giving the seats back); ticketing, cancelling and
 * refunding move them on.
 */
import type { Contact } from '../requests';
import { Records } from '../records';
import { AIRLINES, type Cabin } from './inventory';
import type { FareFamily, Passengers, PassengerType } from './pricing';
import type { Traveler } from './requests';
import type { Leg } from './schedule';
import { SeatBook, type SeatKey } from './seats';
import { SeatAssignments, type StoredService } from './services';

export type { StoredService };

/** Ticketing closes this long before the first departure: the ticket time limit is never later. */
export const TICKETING_CLOSES_BEFORE_DEPARTURE_MS = 3 * 60 * 60_000;

/** The airline's own change to a booking: one leg's flights retimed (./airline-changes.ts). */
export interface AirlineChange {
  id: string;
  pnr: string;
  /** The booking's leg it replaces. */
  leg_index: number;
  removed: Leg;
  added: Leg;
  action_taken: 'accepted' | 'cancelled' | 'changed' | null;
  action_taken_ms: number | null;
  created_ms: number;
}

/** One leg's share of a booking's fares, in minor units. */
export interface LegFare {
  total_minor: number;
  base_minor: number;
}

export type BookingStatus = 'booked' | 'ticketed' | 'cancelled' | 'expired' | 'refunded';

interface Ticket {
  traveler_index: number;
  first_name: string;
  last_name: string;
  passenger_type: PassengerType;
  ticket_number: string;
}

export interface StoredBooking {
  booking_ref: string;
  pnr: string;
  client_reference: string;
  status: BookingStatus;
  ticket_time_limit_ms: number;
  total_price_minor: number;
  base_total_minor: number;
  cabin: Cabin;
  fare_family: FareFamily;
  refund_penalty_minor: number;
  legs: Leg[];
  /** Each leg's share of the total and of the base fares: what changing it gives back. */
  leg_fares: LegFare[];
  passengers: Passengers;
  travelers: Traveler[];
  contact: Contact;
  tickets: Ticket[];
  /** Seats and bags booked on it; their price is in the total. */
  services: StoredService[];
  /** The airline's own changes to it, newest last. */
  airline_changes: AirlineChange[];
  /** Bumped whenever its legs change: a change offer made before is stale. */
  version: number;
  refund: { refunded_minor: number; penalty_minor: number } | null;
  seat_keys: SeatKey[];
  /** Adults + children: the seats taken on every segment. */
  seated: number;
  /** True while this booking's seats are taken out of the seat book. */
  holds_seats: boolean;
  /** The seat-book epochs the seats were taken in (see SeatBook.set). */
  epochs: number[];
}

/** What a new booking is made of; the rest is the airline's. */
export type NewBooking = Pick<
  StoredBooking,
  | 'client_reference'
  | 'ticket_time_limit_ms'
  | 'total_price_minor'
  | 'base_total_minor'
  | 'cabin'
  | 'fare_family'
  | 'refund_penalty_minor'
  | 'legs'
  | 'services'
  | 'leg_fares'
  | 'passengers'
  | 'travelers'
  | 'contact'
>;

/** 6 base-36 characters: a bijection of the counter, so PNRs look unrelated yet never repeat. */
function pnrFor(sequence: number): string {
  const space = 36n ** 6n;
  const scrambled = (BigInt(sequence) * 2654435761n) % space; // coprime with 36^6
  return scrambled.toString(36).toUpperCase().padStart(6, '0');
}

export function seatKeys(legs: Leg[], cabin: Cabin): SeatKey[] {
  return legs.flat().map((s) => ({ flight_number: s.flight.flight_number, date: s.date, cabin }));
}

export function seatedOf(p: Passengers): number {
  return p.adults + p.children;
}

export class AirBookings extends Records<StoredBooking> {
  readonly seats = new SeatBook();
  /** The seats chosen on bookings, by flight and designator. */
  readonly seatAssignments = new SeatAssignments();
  private bookingSequence = 0;
  private ticketSequence = 0;

  constructor() {
    super((b) => b.ticket_time_limit_ms);
  }

  /** Takes the seats and books; null when they are sold out. */
  book(booking: NewBooking, seated: number): StoredBooking | null {
    const keys = seatKeys(booking.legs, booking.cabin);
    const epochs = this.seats.take(keys, seated);
    if (epochs === null) return null;
    this.bookingSequence += 1;
    const stored: StoredBooking = {
      booking_ref: `B${100_000 + this.bookingSequence}`,
      pnr: pnrFor(this.bookingSequence),
      client_reference: booking.client_reference,
      status: 'booked',
      ticket_time_limit_ms: booking.ticket_time_limit_ms,
      total_price_minor: booking.total_price_minor,
      base_total_minor: booking.base_total_minor,
      cabin: booking.cabin,
      fare_family: booking.fare_family,
      refund_penalty_minor: booking.refund_penalty_minor,
      legs: booking.legs,
      leg_fares: booking.leg_fares,
      passengers: booking.passengers,
      travelers: booking.travelers,
      contact: booking.contact,
      tickets: [],
      services: booking.services,
      airline_changes: [],
      version: 0,
      refund: null,
      seat_keys: keys,
      seated,
      holds_seats: true,
      epochs,
    };
    this.add(stored.pnr, stored);
    for (const s of stored.services) this.assignSeat(stored, s);
    return stored;
  }

  /** One ticket per traveler, numbered with the operating airline's prefix. */
  ticket(b: StoredBooking): void {
    const prefix = AIRLINES[b.legs[0]?.[0]?.flight.airline ?? 'IR'].ticket_prefix;
    b.tickets = b.travelers.map((t, traveler_index) => {
      this.ticketSequence += 1;
      return {
        traveler_index,
        first_name: t.first_name,
        last_name: t.last_name,
        passenger_type: t.passenger_type,
        ticket_number: `${prefix}${2_100_000_000 + this.ticketSequence}`,
      };
    });
    b.status = 'ticketed';
    this.close(b);
  }

  /**
   * A booked (unticketed) booking is cancelled and its seats go back on sale; a cancelled or
   * expired one stays as it is. False for a ticketed one: it is refunded instead.
   */
  cancel(b: StoredBooking): boolean {
    if (b.status === 'ticketed' || b.status === 'refunded') return false;
    if (b.status === 'booked') this.giveUp(b, 'cancelled');
    return true;
  }

  /**
   * The seats stay sold: a refunded ticket does not go back on sale. While the airline's own
   * change is open the airline refunds in full, and the change is answered by the cancellation.
   */
  refund(b: StoredBooking, now = Date.now()): void {
    const penalty = refundPenaltyNow(b);
    for (const change of openAirlineChanges(b)) {
      change.action_taken = 'cancelled';
      change.action_taken_ms = now;
    }
    b.status = 'refunded';
    b.refund = { refunded_minor: b.total_price_minor - penalty, penalty_minor: penalty };
  }

  /**
   * The legs at `remove` replaced by `add` (kept in departure order): the seats of the removed
   * flights go back on sale and the new ones are taken, all or nothing. False when the new
   * flights have no seats left for the party.
   */
  replaceLegs(b: StoredBooking, remove: number[], add: Leg[], addFares: LegFare[]): boolean {
    const kept = b.legs.flatMap((leg, i) => (remove.includes(i) ? [] : [{ leg, fare: b.leg_fares[i]! }]));
    const keptSegments = new Set(kept.flatMap(({ leg }) => leg));
    const segments = b.legs.flat();
    const held = segments.map((s, i) => ({ segment: s, key: b.seat_keys[i]!, epoch: b.epochs[i]! }));
    const addKeys = seatKeys(add, b.cabin);
    const epochs = this.seats.take(addKeys, b.seated);
    if (epochs === null) return false;
    const given = held.filter((h) => !keptSegments.has(h.segment));
    this.seats.giveBack(
      given.map((h) => h.key),
      b.seated,
      given.map((h) => h.epoch),
    );
    const added = add.map((leg, i) => ({ leg, fare: addFares[i]! }));
    const legs = [...kept, ...added].sort((x, y) => (x.leg[0]?.departure_ms ?? 0) - (y.leg[0]?.departure_ms ?? 0));
    // Seats and bags on the removed legs go with them; the others follow their leg's new place.
    const newIndex = new Map(b.legs.map((leg, i) => [i, legs.findIndex((l) => l.leg === leg)]));
    for (const s of b.services) if (remove.includes(s.leg_index)) this.releaseSeat(b, s);
    b.services = b.services
      .filter((s) => !remove.includes(s.leg_index))
      .map((s) => {
        const leg = newIndex.get(s.leg_index)!;
        return { ...s, leg_index: leg, segments: s.segments.map(([, segment]) => [leg, segment] as [number, number]) };
      });
    const seatOf = new Map<unknown, { key: SeatKey; epoch: number }>([
      ...held.map((h) => [h.segment, h] as const),
      ...add.flat().map((s, i) => [s, { key: addKeys[i]!, epoch: epochs[i]! }] as const),
    ]);
    b.legs = legs.map((l) => l.leg);
    b.leg_fares = legs.map((l) => l.fare);
    b.seat_keys = b.legs.flat().map((s) => seatOf.get(s)!.key);
    b.epochs = b.legs.flat().map((s) => seatOf.get(s)!.epoch);
    b.version += 1;
    return true;
  }

  private assignSeat(b: StoredBooking, s: StoredService): void {
    const segment = s.designator ? b.legs[s.leg_index]?.[s.segments[0]![1]] : undefined;
    if (segment) this.seatAssignments.assign(segment, s.designator!, b.pnr);
  }

  private releaseSeat(b: StoredBooking, s: StoredService): void {
    const segment = s.designator ? b.legs[s.leg_index]?.[s.segments[0]![1]] : undefined;
    if (segment) this.seatAssignments.release(segment, s.designator!, b.pnr);
  }

  /** Adds paid services to a booking: their price joins its total. */
  addServices(b: StoredBooking, services: StoredService[]): void {
    for (const s of services) this.assignSeat(b, s);
    b.services = [...b.services, ...services];
    b.total_price_minor += services.reduce((a, s) => a + s.total_minor, 0);
  }

  protected giveBack(b: StoredBooking): void {
    if (!b.holds_seats) return;
    for (const s of b.services) this.releaseSeat(b, s);
    b.holds_seats = false;
    this.seats.giveBack(b.seat_keys, b.seated, b.epochs);
  }
}

export function openAirlineChanges(b: StoredBooking): AirlineChange[] {
  return b.airline_changes.filter((c) => c.action_taken === null);
}

/** What cancelling a ticket keeps back now: the fare's penalty, or nothing while the airline's own change is open. */
export function refundPenaltyNow(b: StoredBooking): number {
  return openAirlineChanges(b).length > 0 ? 0 : Math.min(b.refund_penalty_minor, b.total_price_minor);
}
