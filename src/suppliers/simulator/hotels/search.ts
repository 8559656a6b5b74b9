/**
 * The bedbank's availability search: for each candidate hotel, every room that fits the
 * party and has rooms left for every night, in each board, refundable or not, priced for
 * the whole stay and signed; hotels by their cheapest rate.
 */
import { CURRENCY } from '../requests';
import type { AllotmentBook } from './allotment';
import type { Hotel } from './inventory';
import { BOARDS, fits, quote, stayNights } from './pricing';
import { signRateKey } from './rate-key';
import type { AvailabilityRequest } from './requests';

export function availableHotels(candidates: Hotel[], req: AvailabilityRequest, allotment: AllotmentBook, now: number) {
  const nights = stayNights(req.check_in, req.check_out);
  return candidates
    .map((hotel) => {
      const rates = hotel.rooms
        .filter((room) => req.rooms.every((o) => fits(room, o)))
        .filter((room) => allotment.minAvailable(hotel.hotel_id, room.room_code, nights) >= req.rooms.length)
        .flatMap((room) =>
          BOARDS.flatMap((board) =>
            [true, false].map((refundable) => {
              const stay = { board, refundable, check_in: req.check_in, check_out: req.check_out, nationality: req.nationality, rooms: req.rooms };
              const { total_price_minor } = quote({ ...stay, hotel, room });
              const rate_key = signRateKey({ hotel_id: hotel.hotel_id, room_code: room.room_code, ...stay, total_price_minor, issued_at: now });
              return {
                rate_key,
                room_code: room.room_code,
                room_name: room.room_name,
                board,
                refundable,
                total_price_minor,
                currency: CURRENCY,
                rooms: req.rooms.length,
                max_occupancy: room.max_occupancy,
              };
            }),
          ),
        )
        .sort((a, b) => a.total_price_minor - b.total_price_minor);
      return {
        hotel_id: hotel.hotel_id,
        name: hotel.name,
        stars: hotel.stars,
        city_id: hotel.city_id,
        address: hotel.address,
        domestic: hotel.domestic,
        rates,
      };
    })
    .filter((h) => h.rates.length > 0)
    .sort((a, b) => (a.rates[0]?.total_price_minor ?? 0) - (b.rates[0]?.total_price_minor ?? 0) || a.hotel_id - b.hotel_id);
}
