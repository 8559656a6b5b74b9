import type { FlightSearch, FlightSupplier } from '../../suppliers/flights';
import type { AvailabilityRequest, HotelSupplier } from '../../suppliers/hotels';
import type { SearchLayer } from './layer';

/**
 * A hotel search as the cache keys it: what changes the supplier's answer, spelled one way
 * (codes upper-case, the default of `domestic` written out, nothing undefined).
 */
export const hotelSearchKey = (req: AvailabilityRequest) => ({
  city_id: req.city_id ?? null,
  hotel_id: req.hotel_id ?? null,
  check_in: req.check_in,
  check_out: req.check_out,
  nationality: req.nationality.toUpperCase(),
  rooms: req.rooms.map((r) => ({ adults: r.adults, children_ages: r.children_ages })),
  domestic: req.domestic ?? false,
});

/** A flight search as the cache keys it. */
export const flightSearchKey = (req: FlightSearch) => ({
  origin: req.origin.toUpperCase(),
  destination: req.destination.toUpperCase(),
  departure_date: req.departure_date,
  return_date: req.return_date ?? null,
  adults: req.adults,
  children: req.children,
  infants: req.infants,
  cabin: req.cabin,
});

/** The earliest moment an offer in a flight search's answer expires at the airline (ms), if any says. */
function earliestExpiry(found: { offers: Array<{ expires_at: string | null }> }): number | null {
  let earliest: number | null = null;
  for (const o of found.offers) {
    const at = o.expires_at === null ? NaN : Date.parse(o.expires_at);
    if (!Number.isNaN(at) && (earliest === null || at < earliest)) earliest = at;
  }
  return earliest;
}

/** The hotel supplier with its searches and its cities through the search layer; every other call goes to it as before. */
export function hotelSearchesThrough(layer: SearchLayer, supplier: HotelSupplier): HotelSupplier {
  return {
    ...supplier,
    cities: () => layer.reference({ supplier: supplier.name, service: 'hotels', name: 'cities' }, () => supplier.cities()),
    search: (req, opts) =>
      layer.search({ supplier: supplier.name, service: 'hotels', request: hotelSearchKey(req), fresh: opts?.fresh }, () => supplier.search(req)),
  };
}

/** The airline with its searches and its airports through the search layer (an answer is kept no longer than its first offer lasts). */
export function flightSearchesThrough(layer: SearchLayer, supplier: FlightSupplier): FlightSupplier {
  return {
    ...supplier,
    airports: () => layer.reference({ supplier: supplier.name, service: 'flights', name: 'airports' }, () => supplier.airports()),
    search: (req) =>
      layer.search({ supplier: supplier.name, service: 'flights', request: flightSearchKey(req), expiresAt: earliestExpiry }, () => supplier.search(req)),
  };
}
