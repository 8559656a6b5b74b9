/** How the airline answers: itineraries and bookings as JSON. */
import { CURRENCY } from '../requests';
import { refundPenaltyNow, type StoredBooking } from './bookings';
import { AIRLINES, type Cabin } from './inventory';
import { FAMILIES, type FareFamily } from './pricing';
import type { Leg, Segment } from './schedule';

function segmentView(s: Segment, cabin: Cabin, family: FareFamily) {
  return {
    flight_number: s.flight.flight_number,
    airline: s.flight.airline,
    airline_name: AIRLINES[s.flight.airline].name,
    origin: s.flight.origin,
    destination: s.flight.destination,
    departure: new Date(s.departure_ms).toISOString(),
    arrival: new Date(s.arrival_ms).toISOString(),
    cabin,
    booking_class: FAMILIES[family].booking_class,
  };
}

export function legsView(legs: Leg[], cabin: Cabin, family: FareFamily) {
  return legs.map((leg) => ({ segments: leg.map((s) => segmentView(s, cabin, family)) }));
}

export function bookingView(b: StoredBooking) {
  return {
    booking_ref: b.booking_ref,
    client_reference: b.client_reference,
    pnr: b.pnr,
    status: b.status,
    ticket_time_limit: new Date(b.ticket_time_limit_ms).toISOString(),
    total_price_minor: b.total_price_minor,
    currency: CURRENCY,
    fare_family: b.fare_family,
    refundable: FAMILIES[b.fare_family].refundable,
    refund_penalty_minor: b.refund_penalty_minor,
    cabin: b.cabin,
    legs: legsView(b.legs, b.cabin, b.fare_family),
    travelers: b.travelers,
    contact: b.contact,
    tickets: b.tickets,
    services: b.services.map((s) => ({
      service_id: s.service_id,
      type: s.type,
      traveler_index: s.traveler_index,
      segments: s.segments,
      quantity: s.quantity,
      total_minor: s.total_minor,
      ...(s.designator ? { designator: s.designator } : {}),
    })),
    /** What a refund now gives back: the total less the fare's penalty, all of it while the airline's own change is open. */
    refund_now_minor: b.total_price_minor - refundPenaltyNow(b),
    ...(b.refund ?? {}),
  };
}
