/**
 * Offers handed out signed (the airline's fare source codes, the bedbank's rate keys): the
 * offer itself, so that the simulator keeps no search state and a client cannot change the
 * price or what it buys. base64url(JSON) + '.' + base64url(HMAC-SHA256), with a key per kind
 * and per process: a token from one run is worthless in the next, as with a real supplier's
 * session.
 */
import crypto from 'node:crypto';
import type { z } from 'zod';

export type Verified<T, Name extends string> = { ok: true; payload: T } | { ok: false; error: `invalid ${Name}` | `${Name} expired` };

/** Signs and verifies the offers of one kind, `name` as the error messages call them. */
export function signedOffers<S extends z.ZodType<{ issued_at: number }>, Name extends string>(schema: S, name: Name) {
  const secret = crypto.randomBytes(32);
  const mac = (payloadJson: string): Buffer => crypto.createHmac('sha256', secret).update(payloadJson).digest();
  const invalid = `invalid ${name}` as const;

  function sign(payload: z.infer<S>): string {
    const json = JSON.stringify(payload);
    return `${Buffer.from(json).toString('base64url')}.${mac(json).toString('base64url')}`;
  }

  function verify(token: string, ttlMs: number, now: number): Verified<z.infer<S>, Name> {
    const parts = token.split('.');
    if (parts.length !== 2) return { ok: false, error: invalid };
    const [body = '', signature = ''] = parts;
    const json = Buffer.from(body, 'base64url').toString('utf8');
    const given = Buffer.from(signature, 'base64url');
    const expected = mac(json);
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return { ok: false, error: invalid };
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      return { ok: false, error: invalid };
    }
    const payload = schema.safeParse(parsed);
    if (!payload.success) return { ok: false, error: invalid };
    if (now - payload.data.issued_at > ttlMs) return { ok: false, error: `${name} expired` };
    return { ok: true, payload: payload.data };
  }

  return { sign, verify };
}
