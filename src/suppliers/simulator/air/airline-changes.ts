/**
 * The airline's own changes to ticketed bookings (schedule changes): a flight retimed, its
 * leg removed and the retimed one added in its place. Each is open until it is accepted (the
 * booking takes the new times), cancelled (the booking refunded, in full) or answered by a
 * change the traveller makes.
 */
import type { AirlineChange, StoredBooking } from './bookings';

/** How far the airline moves a flight when the sandbox asks for a schedule change and says no more. */
export const DEFAULT_SHIFT_MINUTES = 180;

const MINUTE_MS = 60_000;

/** Every airline change by its id: they are kept on their bookings too. */
export class AirlineChanges {
  private readonly byId = new Map<string, { change: AirlineChange; booking: StoredBooking }>();
  private sequence = 0;

  /** The airline moves the leg's flights by `shiftMinutes` (later when positive). */
  plant(booking: StoredBooking, legIndex: number, shiftMinutes: number, now = Date.now()): AirlineChange {
    const removed = booking.legs[legIndex]!;
    const added = removed.map((s) => ({ ...s, departure_ms: s.departure_ms + shiftMinutes * MINUTE_MS, arrival_ms: s.arrival_ms + shiftMinutes * MINUTE_MS }));
    this.sequence += 1;
    const change: AirlineChange = {
      id: `AIC-${String(this.sequence).padStart(6, '0')}`,
      pnr: booking.pnr,
      leg_index: legIndex,
      removed,
      added,
      action_taken: null,
      action_taken_ms: null,
      created_ms: now,
    };
    booking.airline_changes.push(change);
    this.byId.set(change.id, { change, booking });
    return change;
  }

  find(id: string): { change: AirlineChange; booking: StoredBooking } | undefined {
    return this.byId.get(id);
  }

  /**
   * The booking takes the retimed flights. Only an open change on a ticketed booking whose
   * legs are still the ones it changed; an accepted one is answered as it is (true).
   */
  accept(change: AirlineChange, booking: StoredBooking, now = Date.now()): true | string {
    if (change.action_taken === 'accepted') return true;
    if (change.action_taken !== null) return `the airline change was already answered: ${change.action_taken}`;
    if (booking.status !== 'ticketed') return `only a ticketed booking takes the airline's change (this one is ${booking.status})`;
    if (booking.legs[change.leg_index] !== change.removed) return 'the booking has changed since the airline changed it';
    booking.legs[change.leg_index] = change.added;
    booking.version += 1;
    change.action_taken = 'accepted';
    change.action_taken_ms = now;
    return true;
  }
}
