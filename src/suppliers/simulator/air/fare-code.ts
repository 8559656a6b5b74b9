/**
 * Fare source codes: the offer itself, signed, so that the simulator keeps no search state
 * and a client cannot change the price, the flights or the passengers.
 * base64url(JSON) + '.' + base64url(HMAC-SHA256).
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import { CABINS } from './inventory';
import { FARE_FAMILIES } from './pricing';

/** Per process: a code from one run is worthless in the next, as with a real GDS session. */
const SECRET = crypto.randomBytes(32);

const FareCodePayload = z.object({
  /** Flight numbers and UTC departure dates, per leg (outbound, then return). */
  legs: z
    .array(z.object({ segments: z.array(z.object({ flight_number: z.string(), date: z.string() })).min(1).max(2) }))
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

function mac(payloadJson: string): Buffer {
  return crypto.createHmac('sha256', SECRET).update(payloadJson).digest();
}

export function signFareCode(payload: FareCodePayload): string {
  const json = JSON.stringify(payload);
  return `${Buffer.from(json).toString('base64url')}.${mac(json).toString('base64url')}`;
}

export type VerifiedFareCode =
  | { ok: true; payload: FareCodePayload }
  | { ok: false; error: 'invalid fare_source_code' | 'fare_source_code expired' };

export function verifyFareCode(code: string, ttlMs: number, now: number): VerifiedFareCode {
  const parts = code.split('.');
  if (parts.length !== 2) return { ok: false, error: 'invalid fare_source_code' };
  const [body = '', signature = ''] = parts;
  const json = Buffer.from(body, 'base64url').toString('utf8');
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(json);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return { ok: false, error: 'invalid fare_source_code' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { ok: false, error: 'invalid fare_source_code' };
  }
  const payload = FareCodePayload.safeParse(parsed);
  if (!payload.success) return { ok: false, error: 'invalid fare_source_code' };
  if (now - payload.data.issued_at > ttlMs) return { ok: false, error: 'fare_source_code expired' };
  return { ok: true, payload: payload.data };
}
