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

/** Ticketing closes this long before the first departure: the ticket time limit is never later. */
export const TICKETING_CLOSES_BEFORE_DEPARTURE_MS = 3 * 60 * 60_000;

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
  travelers: Traveler[];
  contact: Contact;
  tickets: Ticket[];
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
      travelers: booking.travelers,
      contact: booking.contact,
      tickets: [],
      refund: null,
      seat_keys: keys,
      seated,
      holds_seats: true,
      epochs,
    };
    this.add(stored.pnr, stored);
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

  /** The seats stay sold: a refunded ticket does not go back on sale. */
  refund(b: StoredBooking): void {
    b.status = 'refunded';
    b.refund = { refunded_minor: b.total_price_minor - b.refund_penalty_minor, penalty_minor: b.refund_penalty_minor };
  }

  protected giveBack(b: StoredBooking): void {
    if (!b.holds_seats) return;
    b.holds_seats = false;
    this.seats.giveBack(b.seat_keys, b.seated, b.epochs);
  }
}
