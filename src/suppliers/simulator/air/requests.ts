/** The requests the simulated airline takes: their schemas, and the travelers' check against the fare. */
import { z } from 'zod';
import { CalendarDate, ClientReference, Contact, Nationality, PersonName } from '../requests';
import { CABINS } from './inventory';
import { PASSENGER_TYPES, passengerCount, type Passengers } from './pricing';

/** Adults + children on one booking (infants sit on laps and do not count). */
export const MAX_SEATED_PASSENGERS = 9;

const AirportCode = z.string().regex(/^[A-Z]{3}$/, 'airport codes are 3 uppercase letters (IATA)');
const FareSourceCode = z.string().min(1).max(10_000);
const ServiceId = z.string().min(1).max(100);

export const SearchBody = z
  .object({
    origin: AirportCode,
    destination: AirportCode,
    departure_date: CalendarDate,
    return_date: CalendarDate.optional(),
    adults: z.number().int().min(1),
    children: z.number().int().min(0).default(0),
    infants: z.number().int().min(0).default(0),
    cabin: z.enum(CABINS),
  })
  .superRefine((b, ctx) => {
    if (b.return_date !== undefined && b.return_date < b.departure_date) {
      ctx.addIssue({ code: 'custom', path: ['return_date'], message: 'return_date must not be before departure_date' });
    }
    if (b.infants > b.adults) ctx.addIssue({ code: 'custom', path: ['infants'], message: 'every infant needs an adult: infants must not outnumber adults' });
    if (b.adults + b.children > MAX_SEATED_PASSENGERS) {
      ctx.addIssue({ code: 'custom', path: ['children'], message: `at most ${MAX_SEATED_PASSENGERS} adults and children on one booking` });
    }
  });
export type SearchRequest = z.infer<typeof SearchBody>;

export const FareCodeBody = z.object({ fare_source_code: FareSourceCode });

const Traveler = PersonName.extend({
  birth_date: CalendarDate,
  gender: z.enum(['male', 'female']),
  passenger_type: z.enum(PASSENGER_TYPES),
  nationality: Nationality,
  national_id: z.string().trim().min(1).max(30).optional(),
  passport_number: z.string().trim().min(1).max(30).optional(),
  passport_expiry_date: CalendarDate.optional(),
});
export type Traveler = z.infer<typeof Traveler>;

export const BookingBody = z.object({
  fare_source_code: FareSourceCode,
  client_reference: ClientReference,
  travelers: z
    .array(Traveler)
    .min(1)
    .max(MAX_SEATED_PASSENGERS * 2),
  contact: Contact,
  /** Seats and bags from the offer's seat maps and services (./services.ts). */
  services: z
    .array(z.object({ service_id: ServiceId, quantity: z.number().int().min(1).max(9) }))
    .max(MAX_SEATED_PASSENGERS * 2 * 4)
    .default([]),
});

export const SeatsBody = z.object({
  flight_number: z.string().min(1),
  date: CalendarDate,
  cabin: z.enum(CABINS),
  count: z.number().int().min(0),
});

export function travelersProblem(travelers: Traveler[], passengers: Passengers): string | null {
  for (const type of PASSENGER_TYPES) {
    const given = travelers.filter((t) => t.passenger_type === type).length;
    const expected = passengerCount(passengers, type);
    if (given !== expected) {
      return `travelers must match the fare: ${passengers.adults} ADT, ${passengers.children} CHD, ${passengers.infants} INF (got ${given} ${type})`;
    }
  }
  return null;
}

/** The legs to take out (indexes into the booking's legs, each once) and those to fly instead. */
export const ChangeRequestBody = z.object({
  remove: z
    .array(z.number().int().min(0))
    .min(1)
    .max(2)
    .refine((r) => new Set(r).size === r.length, 'each leg at most once'),
  add: z
    .array(z.object({ origin: AirportCode, destination: AirportCode, departure_date: CalendarDate, cabin: z.enum(CABINS) }))
    .min(1)
    .max(2),
});

export const CreateChangeBody = z.object({ change_offer_id: z.string().min(1).max(100) });

/** A payment from the agent's balance: the change's total when it is positive, none otherwise. */
export const ConfirmChangeBody = z.object({
  payment: z.object({ amount_minor: z.number().int().min(0), currency: z.string().min(1) }).optional(),
});

/** The control API's schedule change: the airline moves one leg's flights by some minutes. */
export const AirlineChangeBody = z.object({
  leg_index: z.number().int().min(0).default(0),
  shift_minutes: z
    .number()
    .int()
    .min(-24 * 60)
    .max(24 * 60)
    .refine((m) => m !== 0, 'a schedule change moves the flights')
    .optional(),
});

/** Bags added to a ticketed booking, and the payment of their total from the agent's balance. */
export const AddServicesBody = z.object({
  services: z
    .array(z.object({ service_id: ServiceId, quantity: z.number().int().min(1).max(9) }))
    .min(1)
    .max(MAX_SEATED_PASSENGERS * 2 * 2),
  payment: z.object({ amount_minor: z.number().int().min(0), currency: z.string().min(1) }),
});
