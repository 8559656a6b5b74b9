import { validation } from '../errors';
import type { PropertyRow } from './availability';
import { priceStay } from './pricing';

export const MAX_NIGHTS = 60;

/** Checks a stay against a property (dates, nights, guests) without locking anything. */
export function checkStay(p: PropertyRow, checkIn: string, checkOut: string, guests: number, now: Date): void {
  if (checkIn <= now.toISOString().slice(0, 10)) throw validation('check_in', 'must be in the future');
  if (checkOut <= checkIn) throw validation('check_out', 'must be after check_in');
  const nights = priceStay(p, checkIn, checkOut).nights;
  if (nights < p.minNights) throw validation('check_out', `this property takes at least ${p.minNights} nights`);
  if (nights > MAX_NIGHTS) throw validation('check_out', `a stay is at most ${MAX_NIGHTS} nights`);
  if (guests > p.maxGuests) throw validation('guests', `this property sleeps at most ${p.maxGuests}`);
}
