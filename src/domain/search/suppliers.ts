import type { FlightSearch, FlightSupplier } from '../../suppliers/flights';
import type { AvailabilityRequest, HotelSupplier } from '../../suppliers/hotels';
import { foundOnce, type Found, type SearchLayer } from './layer';

type HotelAnswer = Awaited<ReturnType<HotelSupplier['search']>>;
type FlightAnswer = Awaited<ReturnType<FlightSupplier['search']>>;

/** The search layer's `find` of each supplier put through it (below), by the supplier as put through. */
const finders = new WeakMap<object, (req: never, opts?: { fresh?: boolean }) => Promise<Found<unknown>>>();

/** The search layer's deadline of each supplier put through it. */
const deadlines = new WeakMap<object, <T>(run: () => Promise<T>) => Promise<T>>();

/**
 * `run` (a whole search: its reference list and the search) within the search deadline of
 * `supplier`'s layer; a supplier not put through the layer has none of its own here.
 */
export function withinSearch<T>(supplier: object, run: () => Promise<T>): Promise<T> {
  const within = deadlines.get(supplier);
  return within ? within(run) : run();
}

/** A supplier's answer as the search layer holds it; from a supplier not put through the layer, an answer named once and not kept. */
async function foundBy<Req, T>(
  supplier: { search(req: Req, opts?: { fresh?: boolean }): Promise<T> },
  req: Req,
  opts?: { fresh?: boolean },
): Promise<Found<T>> {
  const find = finders.get(supplier) as ((req: Req, opts?: { fresh?: boolean }) => Promise<Found<T>>) | undefined;
  if (find) return find(req, opts);
  return foundOnce(await supplier.search(req, opts));
}

/** A hotel search's answer as the search layer holds it (what is made from it is kept under its id). */
export const findHotels = (supplier: HotelSupplier, req: AvailabilityRequest): Promise<Found<HotelAnswer>> => foundBy(supplier, req);

/** A flight search's answer as the search layer holds it. */
export const findFlights = (supplier: FlightSupplier, req: FlightSearch): Promise<Found<FlightAnswer>> => foundBy(supplier, req);

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
  const find = (req: AvailabilityRequest, opts?: { fresh?: boolean }) =>
    layer.find({ supplier: supplier.name, service: 'hotels', request: hotelSearchKey(req), fresh: opts?.fresh }, () =>
      layer.guarded(supplier.name, 'hotels.search', () => supplier.search(req)),
    );
  const within = <T>(run: () => Promise<T>) => layer.within(supplier.name, run);
  const through: HotelSupplier = {
    ...supplier,
    cities: () =>
      within(() =>
        layer.reference({ supplier: supplier.name, service: 'hotels', name: 'cities' }, () =>
          layer.guarded(supplier.name, 'hotels.cities', () => supplier.cities()),
        ),
      ),
    search: async (req, opts) => (await within(() => find(req, opts))).value(),
  };
  finders.set(through, (req: AvailabilityRequest, opts?: { fresh?: boolean }) => within(() => find(req, opts)));
  deadlines.set(through, within);
  return through;
}

/** The airline with its searches and its airports through the search layer (an answer is kept no longer than its first offer lasts). */
export function flightSearchesThrough(layer: SearchLayer, supplier: FlightSupplier): FlightSupplier {
  const find = (req: FlightSearch) =>
    layer.find({ supplier: supplier.name, service: 'flights', request: flightSearchKey(req), expiresAt: earliestExpiry }, () =>
      layer.guarded(supplier.name, 'flights.search', () => supplier.search(req)),
    );
  const within = <T>(run: () => Promise<T>) => layer.within(supplier.name, run);
  const through: FlightSupplier = {
    ...supplier,
    airports: () =>
      within(() =>
        layer.reference({ supplier: supplier.name, service: 'flights', name: 'airports' }, () =>
          layer.guarded(supplier.name, 'flights.airports', () => supplier.airports()),
        ),
      ),
    search: async (req) => (await within(() => find(req))).value(),
  };
  finders.set(through, (req: FlightSearch) => within(() => find(req)));
  deadlines.set(through, within);
  return through;
}
