/** How the bedbank answers: a hotel's static content, and holds and bookings as JSON. */
import { CURRENCY } from '../requests';
import type { StoredHold } from './holds';
import { findCity, type Hotel } from './inventory';

/** Static content of one hotel: rooms, amenities (by stars) and house policies. */
export function hotelView(hotel: Hotel) {
  const amenities = ['Free Wi-Fi', '24-hour front desk', 'Air conditioning'];
  if (hotel.stars >= 3) amenities.push('Restaurant', 'Room service');
  if (hotel.stars >= 4) amenities.push('Fitness centre', 'Airport shuttle', 'Spa');
  if (hotel.stars === 5) amenities.push('Outdoor pool', 'Concierge');
  return {
    ...hotel,
    city: findCity(hotel.city_id)?.name ?? null,
    rooms: hotel.rooms.map((r) => ({ room_code: r.room_code, room_name: r.room_name, max_occupancy: r.max_occupancy })),
    amenities,
    policies: {
      check_in_from: '14:00',
      check_out_until: '12:00',
      children: 'Children under 2 stay free in existing beds',
      cancellation: 'Refundable rates: free until 3 days before arrival, then the first night; from arrival day the whole stay',
    },
  };
}

export function holdView(h: StoredHold) {
  return {
    hold_id: h.hold_id,
    client_reference: h.client_reference,
    status: h.status,
    expires_at: new Date(h.expires_at_ms).toISOString(),
    total_price_minor: h.total_price_minor,
    currency: CURRENCY,
    hotel_id: h.hotel.hotel_id,
    hotel_name: h.hotel.name,
    city_id: h.hotel.city_id,
    room_code: h.room.room_code,
    room_name: h.room.room_name,
    board: h.board,
    refundable: h.refundable,
    check_in: h.check_in,
    check_out: h.check_out,
    rooms: h.rooms,
    cancellation_policy: h.cancellation_policy,
    confirmation_number: h.confirmation_number,
  };
}
