import { validation } from '../errors';
import type { Contact, GuestDetails, Occupancy } from '../../suppliers/hotels';

/**
 * Iran's national code (code melli): ten digits whose last is a check digit over the
 * first nine weighted 10..2, modulo 11. Ten equal digits pass the sum but are not issued.
 */
export function isValidIranianNationalId(code: string): boolean {
  if (!/^\d{10}$/.test(code) || /^(\d)\1{9}$/.test(code)) return false;
  const digits = [...code].map(Number);
  const sum = digits.slice(0, 9).reduce((acc, d, i) => acc + d * (10 - i), 0);
  const r = sum % 11;
  const check = digits[9]!;
  return r < 2 ? check === r : check === 11 - r;
}

const PASSPORT = /^[A-Z0-9]{6,20}$/;

/**
 * Guests per room must fit the room's occupancy; Iranian nationals identify with a valid
 * national_id, everyone else with a passport_number. Errors name the exact field.
 */
export function validateGuests(guests: GuestDetails[][], rooms: Occupancy[]): void {
  if (guests.length !== rooms.length) {
    throw validation('guests', `give one list of guests per room: the rate has ${rooms.length} room(s), got ${guests.length}`);
  }
  guests.forEach((roomGuests, r) => {
    const capacity = rooms[r]!.adults + rooms[r]!.children_ages.length;
    if (roomGuests.length < 1 || roomGuests.length > capacity) {
      throw validation(`guests.${r}`, `room ${r + 1} takes 1 to ${capacity} guest(s)`);
    }
    roomGuests.forEach((g, i) => {
      const at = `guests.${r}.${i}`;
      if (g.nationality === 'IR') {
        if (!g.national_id) throw validation(`${at}.national_id`, 'is required for Iranian nationals');
        if (!isValidIranianNationalId(g.national_id))
          throw validation(`${at}.national_id`, 'is not a valid Iranian national id (10 digits with a valid check digit)');
      } else {
        if (!g.passport_number) throw validation(`${at}.passport_number`, 'is required for foreign nationals');
        if (!PASSPORT.test(g.passport_number)) throw validation(`${at}.passport_number`, 'must be 6 to 20 capital letters or digits');
      }
    });
  });
}

export type { Contact, GuestDetails, Occupancy };
