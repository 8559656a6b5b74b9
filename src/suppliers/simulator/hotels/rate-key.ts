/**
 * Rate keys: the offer itself, signed (see ../signed-offer.ts), so that the simulator keeps
 * no search state and a client cannot change the price or the stay; and the offer a key
 * names, opened again and priced now.
 */
import { z } from 'zod';
import { signedOffers } from '../signed-offer';
import { findHotel, findRoom, type Hotel, type RoomType } from './inventory';
import { BOARDS, cancellationPolicy, changedPrice, quote, stayNights } from './pricing';

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

export const { sign: signRateKey, verify: verifyRateKey } = signedOffers(RateKeyPayload, 'rate_key');

/** The stay a key prices: board, refundability, dates, nationality and rooms. */
export const stayOf = (p: RateKeyPayload) => ({
  board: p.board,
  refundable: p.refundable,
  check_in: p.check_in,
  check_out: p.check_out,
  nationality: p.nationality,
  rooms: p.rooms,
});

export type Offer = { payload: RateKeyPayload; hotel: Hotel; room: RoomType; nights: string[] };

/** A key verified (signature, age) and its hotel and room found again: the offer, or why not. */
export function openRateKey(rateKey: string, ttlMs: number, now: number): { offer: Offer } | { error: string } {
  const verified = verifyRateKey(rateKey, ttlMs, now);
  if (!verified.ok) return { error: verified.error };
  const payload = verified.payload;
  const hotel = findHotel(payload.hotel_id);
  const room = hotel && findRoom(hotel, payload.room_code);
  if (!hotel || !room) return { error: 'invalid rate_key' };
  return { offer: { payload, hotel, room, nights: stayNights(payload.check_in, payload.check_out) } };
}

/** The offer's price now (7% more under price_changed) and its cancellation policy. */
export function priceNow(offer: Offer, priceChanged: boolean, now: number) {
  const p = offer.payload;
  const original = p.total_price_minor;
  const firstNight = quote({ ...p, hotel: offer.hotel, room: offer.room }).first_night_minor;
  const total = priceChanged ? changedPrice(original) : original;
  const penaltyFirstNight = priceChanged ? changedPrice(firstNight) : firstNight;
  return { original, total, policy: cancellationPolicy(p.refundable, p.check_in, total, penaltyFirstNight, now) };
}
