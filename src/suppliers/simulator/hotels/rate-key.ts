/**
 * Rate keys: the offer itself, signed, so that the simulator keeps no search state and a
 * client cannot change the price or the stay. base64url(JSON) + '.' + base64url(HMAC).
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import { BOARDS } from './pricing';

/** Per process: a key from one run is worthless in the next, as with a real supplier's session. */
const SECRET = crypto.randomBytes(32);

const RateKeyPayload = z.object({
  hotel_id: z.number().int(),
  room_code: z.string(),
  board: z.enum(BOARDS),
  refundable: z.boolean(),
  check_in: z.string(),
  check_out: z.string(),
  nationality: z.string(),
  rooms: z.array(z.object({ adults: z.number().int(), children_ages: z.array(z.number().int()) })).min(1),
  total_price_minor: z.number().int(),
  issued_at: z.number().int(),
});
export type RateKeyPayload = z.infer<typeof RateKeyPayload>;

function mac(payloadJson: string): Buffer {
  return crypto.createHmac('sha256', SECRET).update(payloadJson).digest();
}

export function signRateKey(payload: RateKeyPayload): string {
  const json = JSON.stringify(payload);
  return `${Buffer.from(json).toString('base64url')}.${mac(json).toString('base64url')}`;
}

export type VerifiedRateKey = { ok: true; payload: RateKeyPayload } | { ok: false; error: 'invalid rate_key' | 'rate_key expired' };

export function verifyRateKey(rateKey: string, ttlMs: number, now: number): VerifiedRateKey {
  const parts = rateKey.split('.');
  if (parts.length !== 2) return { ok: false, error: 'invalid rate_key' };
  const [body = '', signature = ''] = parts;
  const json = Buffer.from(body, 'base64url').toString('utf8');
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(json);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return { ok: false, error: 'invalid rate_key' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { ok: false, error: 'invalid rate_key' };
  }
  const payload = RateKeyPayload.safeParse(parsed);
  if (!payload.success) return { ok: false, error: 'invalid rate_key' };
  if (now - payload.data.issued_at > ttlMs) return { ok: false, error: 'rate_key expired' };
  return { ok: true, payload: payload.data };
}
