/**
 * Fare source codes: the offer itself, signed (see ../signed-offer.ts), so that the
 * simulator keeps no search state and a client cannot change the price, the flights or the
 * passengers; and the itinerary a code names, opened again.
 */
import { z } from 'zod';
import { isCalendarDate } from '../../../platform/calendar';
import { signedOffers } from '../signed-offer';
import { CABINS, findFlight } from './inventory';
import { FAMILIES, FARE_FAMILIES } from './pricing';
import { segmentOn, type Leg, type Segment } from './schedule';

const FareCodePayload = z.object({
  /** Flight numbers and UTC departure dates, per leg (outbound, then return). */
  legs: z
    .array(
      z.object({
        segments: z
          .array(z.object({ flight_number: z.string(), date: z.string() }))
          .min(1)
          .max(2),
      }),
    )
    .min(1)
    .max(2),
  cabin: z.enum(CABINS),
  fare_family: z.enum(FARE_FAMILIES),
  passengers: z.object({ adults: z.number().int(), children: z.number().int(), infants: z.number().int() }),
  total_price_minor: z.number().int(),
  /** The base fares in the total (the rest is tax): refund and change penalties are shares of it. */
  base_total_minor: z.number().int(),
  issued_at: z.number().int(),
});
export type FareCodePayload = z.infer<typeof FareCodePayload>;

export const { sign: signFareCode, verify: verifyFareCode } = signedOffers(FareCodePayload, 'fare_source_code');

/** The flights and dates of an itinerary, as a code carries them. */
export function legsPayload(legs: Leg[]): FareCodePayload['legs'] {
  return legs.map((leg) => ({ segments: leg.map((s) => ({ flight_number: s.flight.flight_number, date: s.date })) }));
}

export type Fare = { payload: FareCodePayload; legs: Leg[] };

/** A code verified (signature, age) and its flights found again: the fare, or why not. */
export function openFareCode(code: string, ttlMs: number, now: number): Fare | { error: string } {
  const verified = verifyFareCode(code, ttlMs, now);
  if (!verified.ok) return { error: verified.error };
  const p = verified.payload;
  if (FAMILIES[p.fare_family].cabin !== p.cabin) return { error: 'invalid fare_source_code' };
  const legs: Leg[] = [];
  for (const leg of p.legs) {
    const segments: Segment[] = [];
    for (const s of leg.segments) {
      const flight = findFlight(s.flight_number);
      if (!flight || !flight.cabins.includes(p.cabin) || !isCalendarDate(s.date)) return { error: 'invalid fare_source_code' };
      segments.push(segmentOn(flight, s.date));
    }
    legs.push(segments);
  }
  return { payload: p, legs };
}
