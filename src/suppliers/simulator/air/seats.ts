import { defaultSeats, type Cabin } from './inventory';

/** One cabin of one flight on one date: where a booking takes its seats. */
export interface SeatKey {
  flight_number: string;
  /** The segment's UTC departure date, YYYY-MM-DD. */
  date: string;
  cabin: Cabin;
}

/**
 * Seats left per (flight, date, cabin), in memory. Cabins nobody has touched hold the
 * deterministic default. Every method is synchronous, so a check and its decrement cannot
 * interleave with another request: two bookings for the last seats get them once.
 */
export class SeatBook {
  private readonly seats = new Map<string, number>();
  /**
   * Bumped by the control API: seats taken before a reset are not given back after it, so
   * "set to N" means exactly N seats are available whatever bookings were open at the time.
   */
  private readonly epochs = new Map<string, number>();

  private static key(k: SeatKey): string {
    return `${k.flight_number}|${k.date}|${k.cabin}`;
  }

  available(k: SeatKey): number {
    return this.seats.get(SeatBook.key(k)) ?? defaultSeats(k.flight_number, k.date, k.cabin);
  }

  /** The fewest seats left on any of the segments. */
  minAvailable(keys: SeatKey[]): number {
    return Math.min(...keys.map((k) => this.available(k)));
  }

  /** Takes `count` seats on every segment, all or nothing; the epochs to give them back with, or null. */
  take(keys: SeatKey[], count: number): number[] | null {
    if (this.minAvailable(keys) < count) return null;
    for (const k of keys) this.seats.set(SeatBook.key(k), this.available(k) - count);
    return keys.map((k) => this.epochs.get(SeatBook.key(k)) ?? 0);
  }

  giveBack(keys: SeatKey[], count: number, epochs: number[]): void {
    keys.forEach((k, i) => {
      if ((this.epochs.get(SeatBook.key(k)) ?? 0) !== epochs[i]) return;
      this.seats.set(SeatBook.key(k), this.available(k) + count);
    });
  }

  set(k: SeatKey, count: number): void {
    const key = SeatBook.key(k);
    this.seats.set(key, count);
    this.epochs.set(key, (this.epochs.get(key) ?? 0) + 1);
  }
}
