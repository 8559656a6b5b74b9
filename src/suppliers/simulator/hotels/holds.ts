/**
 * The bedbank's holds and bookings, in memory: a hold (prebooked without guest names, held
 * with them) takes rooms out of the allotment and expires (giving them back); confirming
 * makes it a booking with a confirmation number; releasing or cancelling gives the rooms back.
 */
import type { Contact } from '../requests';
import { Records } from '../records';
import { AllotmentBook } from './allotment';
import type { PenaltyStep, QuoteInput } from './pricing';
import type { Guest } from './requests';

export type HoldStatus = 'prebooked' | 'held' | 'confirmed' | 'released' | 'expired' | 'cancelled';

export interface StoredHold extends QuoteInput {
  hold_id: string;
  client_reference: string;
  status: HoldStatus;
  expires_at_ms: number;
  total_price_minor: number;
  nights: string[];
  cancellation_policy: PenaltyStep[];
  confirmation_number: string | null;
  guests: Guest[][] | null;
  contact: Contact | null;
  /** True while this hold's rooms are taken out of the allotment. */
  holds_rooms: boolean;
  /** The allotment epoch the rooms were taken in (see AllotmentBook.set). */
  epoch: number;
}

/** What a new hold is made of; the rest is the bedbank's. */
export type NewHold = Omit<StoredHold, 'hold_id' | 'status' | 'confirmation_number' | 'holds_rooms' | 'epoch'>;

/** 'CNF-' + 8 base-36 characters: a bijection of the counter, so numbers look unrelated yet never repeat. */
function confirmationNumber(sequence: number): string {
  const space = 36n ** 8n;
  const scrambled = (BigInt(sequence) * 2654435761n) % space; // odd prime, coprime with 36^8
  return `CNF-${scrambled.toString(36).toUpperCase().padStart(8, '0')}`;
}

export class HotelHolds extends Records<StoredHold> {
  readonly allotment = new AllotmentBook();
  private readonly bookings = new Map<string, StoredHold>();
  private holdSequence = 0;
  private confirmationSequence = 0;

  constructor() {
    super((hold) => hold.expires_at_ms);
  }

  /** The booking with this confirmation number, in the current state. */
  currentBooking(confirmationNumber: string): StoredHold | undefined {
    this.sweep();
    return this.bookings.get(confirmationNumber);
  }

  /** Takes the rooms and holds them (held with guests, else prebooked); null when they are sold out. */
  hold(hold: NewHold): StoredHold | null {
    const epoch = this.allotment.take(hold.hotel.hotel_id, hold.room.room_code, hold.nights, hold.rooms.length);
    if (epoch === null) return null;
    this.holdSequence += 1;
    const stored: StoredHold = {
      hold_id: `H${100_000 + this.holdSequence}`,
      client_reference: hold.client_reference,
      status: hold.guests ? 'held' : 'prebooked',
      expires_at_ms: hold.expires_at_ms,
      total_price_minor: hold.total_price_minor,
      hotel: hold.hotel,
      room: hold.room,
      board: hold.board,
      refundable: hold.refundable,
      check_in: hold.check_in,
      check_out: hold.check_out,
      nationality: hold.nationality,
      rooms: hold.rooms,
      nights: hold.nights,
      cancellation_policy: hold.cancellation_policy,
      confirmation_number: null,
      guests: hold.guests,
      contact: hold.contact,
      holds_rooms: true,
      epoch,
    };
    this.add(stored.hold_id, stored);
    return stored;
  }

  confirm(hold: StoredHold): void {
    this.confirmationSequence += 1;
    hold.status = 'confirmed';
    hold.confirmation_number = confirmationNumber(this.confirmationSequence);
    this.close(hold);
    this.bookings.set(hold.confirmation_number, hold);
  }

  /**
   * A hold not yet confirmed is released and its rooms go back; a released or expired one
   * stays as it is. False for a confirmed one: the booking is cancelled instead.
   */
  release(hold: StoredHold): boolean {
    if (hold.status === 'confirmed' || hold.status === 'cancelled') return false;
    if (hold.status === 'prebooked' || hold.status === 'held') this.giveUp(hold, 'released');
    return true;
  }

  cancel(booking: StoredHold): void {
    booking.status = 'cancelled';
    this.giveBack(booking);
  }

  protected giveBack(hold: StoredHold): void {
    if (!hold.holds_rooms) return;
    hold.holds_rooms = false;
    this.allotment.giveBack(hold.hotel.hotel_id, hold.room.room_code, hold.nights, hold.rooms.length, hold.epoch);
  }
}
