/** The requests the simulated bedbank takes: their schemas, and the guests' check against the rooms. */
import { z } from 'zod';
import { CalendarDate, ClientReference, Contact, Nationality, PersonName } from '../requests';
import { stayNights, type Occupancy } from './pricing';

/** Longest stay one search may ask for. */
export const MAX_NIGHTS = 30;

const RateKey = z.string().min(1).max(10_000);
const RoomOccupancy = z.object({
  adults: z.number().int().min(1),
  children_ages: z.array(z.number().int().min(0).max(17)).default([]),
});

export const AvailabilityBody = z
  .object({
    city_id: z.number().int().optional(),
    hotel_id: z.number().int().optional(),
    check_in: CalendarDate,
    check_out: CalendarDate,
    nationality: Nationality,
    rooms: z.array(RoomOccupancy).min(1).max(8),
    domestic: z.boolean().optional(),
  })
  .superRefine((b, ctx) => {
    if ((b.city_id === undefined) === (b.hotel_id === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give exactly one of city_id and hotel_id' });
    }
    const nights = stayNights(b.check_in, b.check_out).length;
    if (nights < 1) ctx.addIssue({ code: 'custom', path: ['check_out'], message: 'check_out must be after check_in' });
    if (nights > MAX_NIGHTS) ctx.addIssue({ code: 'custom', path: ['check_out'], message: `a stay is at most ${MAX_NIGHTS} nights` });
  });
export type AvailabilityRequest = z.infer<typeof AvailabilityBody>;

export const RateKeyBody = z.object({ rate_key: RateKey });

const Guest = PersonName.extend({
  nationality: Nationality,
  national_id: z.string().trim().min(1).max(30).optional(),
  passport_number: z.string().trim().min(1).max(30).optional(),
});
export type Guest = z.infer<typeof Guest>;
/** One array of guests per room, in the order of the rate's rooms. */
const Guests = z.array(z.array(Guest).min(1)).min(1).max(8);

export const HoldBody = z.object({
  rate_key: RateKey,
  client_reference: ClientReference,
  guests: Guests.optional(),
  contact: Contact.optional(),
});
export const GuestsBody = z.object({ guests: Guests, contact: Contact.optional() });
export const AllotmentBody = z.object({ hotel_id: z.number().int(), room_code: z.string().min(1), count: z.number().int().min(0) });

export function guestsProblem(guests: Guest[][], rooms: Occupancy[]): string | null {
  if (guests.length !== rooms.length) return `guests must hold one list per room (${rooms.length})`;
  for (const [i, list] of guests.entries()) {
    const room = rooms[i];
    if (room && list.length > room.adults + room.children_ages.length) {
      return `room ${i + 1} has ${room.adults + room.children_ages.length} guests, not ${list.length}`;
    }
  }
  return null;
}
