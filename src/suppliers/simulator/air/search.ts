/**
 * The airline's search: every itinerary between the two cities (one way or return) with
 * seats for the party, in each fare family of the cabin, priced and signed, cheapest first.
 */
import { signFareCode, legsPayload } from './fare-code';
import { CURRENCY } from '../requests';
import { seatKeys, seatedOf } from './bookings';
import { FAMILIES, familiesOf, legBaseMinor, quote, type Passengers } from './pricing';
import type { SearchRequest } from './requests';
import { legArrival, legDeparture, legsFor, type Leg } from './schedule';
import type { SeatBook } from './seats';
import { legsView } from './views';

/** Search offers only trips whose first flight leaves at least this long from now. */
export const MIN_LEAD_TIME_MS = 4 * 60 * 60_000;
/** A return flight leaves at least this long after the outbound trip lands. */
export const MIN_STAY_MS = 2 * 60 * 60_000;

/** The trips between two cities: outbound legs, each with every return leg it connects to. */
function tripsFor(originCity: number, destinationCity: number, req: SearchRequest, now: number): Leg[][] {
  const outbound = legsFor(originCity, destinationCity, req.departure_date, req.cabin, legBaseMinor).filter(
    (leg) => legDeparture(leg) >= now + MIN_LEAD_TIME_MS,
  );
  if (req.return_date === undefined) return outbound.map((leg) => [leg]);
  const inbound = legsFor(destinationCity, originCity, req.return_date, req.cabin, legBaseMinor);
  return outbound.flatMap((out) => inbound.filter((back) => legDeparture(back) >= legArrival(out) + MIN_STAY_MS).map((back) => [out, back]));
}

/** The offers, cheapest first (then earliest, fewest stops, in fare-family order). */
export function searchOffers(originCity: number, destinationCity: number, req: SearchRequest, seats: SeatBook, today: string, now: number) {
  const passengers: Passengers = { adults: req.adults, children: req.children, infants: req.infants };
  const seated = seatedOf(passengers);
  const families = familiesOf(req.cabin);
  return tripsFor(originCity, destinationCity, req, now)
    .flatMap((legs) => {
      const seats_left = seats.minAvailable(seatKeys(legs, req.cabin));
      if (seats_left < seated) return [];
      return families.map((fare_family) => {
        const q = quote(legs, req.cabin, fare_family, passengers, today);
        const fare_source_code = signFareCode({
          legs: legsPayload(legs),
          cabin: req.cabin,
          fare_family,
          passengers,
          total_price_minor: q.total_price_minor,
          base_total_minor: q.base_total_minor,
          issued_at: now,
        });
        return {
          fare_source_code,
          total_price_minor: q.total_price_minor,
          currency: CURRENCY,
          refundable: FAMILIES[fare_family].refundable,
          fare_family,
          cabin: req.cabin,
          legs: legsView(legs, req.cabin, fare_family),
          price_breakdown: q.price_breakdown,
          seats_left,
          // Sort keys, dropped below.
          _departure: legDeparture(legs[0] ?? []),
          _stops: legs.reduce((acc, leg) => acc + leg.length - 1, 0),
          _family: families.indexOf(fare_family),
        };
      });
    })
    .sort((a, b) => a.total_price_minor - b.total_price_minor || a._departure - b._departure || a._stops - b._stops || a._family - b._family)
    .map(({ _departure, _stops, _family, ...offer }) => offer);
}
