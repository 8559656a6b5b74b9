import type { PassengerType, Traveler } from '../../suppliers/flights';
import { validation } from '../errors';
import { isValidIranianNationalId } from '../hotels/guests';

/** Full years between a birth date and a day, both YYYY-MM-DD. */
export function ageOn(birthDate: string, day: string): number {
  const [by, bm, bd] = birthDate.split('-').map(Number) as [number, number, number];
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return y - by - (m < bm || (m === bm && d < bd) ? 1 : 0);
}

/** The passenger type an age travels as: infants under 2, children 2 to 11, adults from 12. */
export function passengerTypeAt(age: number): PassengerType {
  if (age < 2) return 'INF';
  if (age < 12) return 'CHD';
  return 'ADT';
}

export function addMonths(day: string, months: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + months);
  return date.toISOString().slice(0, 10);
}

export const PASSPORT_VALIDITY_MONTHS = 6;

/**
 * The travellers must be the ones the fare was priced for (count per passenger type),
 * each of the age of their type on the departure day; Iranians identify with a valid
 * national_id, foreigners with a passport valid six months past departure.
 */
export function validateTravelers(
  travelers: Traveler[],
  priced: { adults: number; children: number; infants: number },
  departureDay: string,
  opts: { passportRequired?: boolean } = {},
): void {
  const count = (t: PassengerType) => travelers.filter((x) => x.passenger_type === t).length;
  const expected: Record<PassengerType, number> = { ADT: priced.adults, CHD: priced.children, INF: priced.infants };
  for (const type of ['ADT', 'CHD', 'INF'] as const) {
    if (count(type) !== expected[type]) {
      throw validation(
        'traveler_info.air_travelers',
        `the fare was priced for ${priced.adults} ADT, ${priced.children} CHD, ${priced.infants} INF; got ${count('ADT')} ADT, ${count('CHD')} CHD, ${count('INF')} INF`,
      );
    }
  }
  travelers.forEach((t, i) => validateTraveler(t, `traveler_info.air_travelers.${i}`, departureDay, opts));
}

/**
 * One traveller on a trip starting `departureDay`: of the age of their passenger type,
 * an Iranian with a valid national_id or a foreigner with a passport valid six months
 * past departure. `at` is the field path errors name.
 */
export function validateTraveler(t: Traveler, at: string, departureDay: string, opts: { passportRequired?: boolean } = {}): void {
  if (t.birth_date >= departureDay) throw validation(`${at}.birth_date`, 'must be before the departure date');
  const age = ageOn(t.birth_date, departureDay);
  if (passengerTypeAt(age) !== t.passenger_type) {
    throw validation(`${at}.passenger_type`, `a traveller aged ${age} on ${departureDay} travels as ${passengerTypeAt(age)}, not ${t.passenger_type}`);
  }
  if (opts.passportRequired && !t.passport_number) throw validation(`${at}.passport_number`, 'is required: the airline asks for a passport for this trip');
  if (t.nationality === 'IR' && !opts.passportRequired) {
    if (!t.national_id) throw validation(`${at}.national_id`, 'is required for Iranian travellers');
    if (!isValidIranianNationalId(t.national_id))
      throw validation(`${at}.national_id`, 'is not a valid Iranian national id (10 digits with a valid check digit)');
    return;
  }
  if (!t.passport_number) throw validation(`${at}.passport_number`, 'is required for foreign travellers');
  if (!t.passport_expiry_date) throw validation(`${at}.passport_expiry_date`, 'is required for foreign travellers');
  const needed = addMonths(departureDay, PASSPORT_VALIDITY_MONTHS);
  if (t.passport_expiry_date < needed) {
    throw validation(`${at}.passport_expiry_date`, `the passport must be valid at least ${PASSPORT_VALIDITY_MONTHS} months after departure (until ${needed})`);
  }
}
