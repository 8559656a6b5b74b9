/**
 * Itineraries: the daily timetable turned into dated segments, direct or with one stop.
 * Pure functions of the cities, the date and the cabin; seat counts are the caller's.
 */
import { addDays } from '../../../platform/calendar';
import { flightsBetween, type Cabin, type Flight } from './inventory';

const MINUTE_MS = 60_000;
const TEHRAN = 1;
const ISTANBUL = 7;
const DUBAI = 8;
/** Shortest connection at one airport. */
export const MIN_CONNECTION_MINUTES = 60;
/** Shortest connection across Tehran, from Mehrabad (THR) to Imam Khomeini (IKA) or back. */
export const MIN_AIRPORT_CHANGE_MINUTES = 180;
/** Longest wait at the connecting airport. */
export const MAX_CONNECTION_MINUTES = 14 * 60;

/** One flight on one date. */
export interface Segment {
  flight: Flight;
  /** UTC departure date, YYYY-MM-DD. */
  date: string;
  departure_ms: number;
  arrival_ms: number;
}

/** One direction of a trip: one segment (direct) or two (one stop). */
export type Leg = Segment[];

export function segmentOn(flight: Flight, date: string): Segment {
  const departure_ms = Date.parse(`${date}T00:00:00.000Z`) + flight.departure_minute * MINUTE_MS;
  return { flight, date, departure_ms, arrival_ms: departure_ms + flight.duration_minutes * MINUTE_MS };
}

export function isDomesticLeg(leg: Leg): boolean {
  return leg.every((s) => s.flight.domestic);
}

function isDomesticCity(cityId: number): boolean {
  return cityId >= 1 && cityId <= 6;
}

/**
 * Where a one-stop itinerary may connect: Istanbul and Dubai between any two cities not
 * both Iranian, and Tehran between another Iranian city and a foreign one.
 */
function hubsFor(originCityId: number, destinationCityId: number): number[] {
  const hubs: number[] = [];
  const domesticEnds = [originCityId, destinationCityId].filter(isDomesticCity).length;
  if (domesticEnds < 2) hubs.push(ISTANBUL, DUBAI);
  if (domesticEnds === 1 && originCityId !== TEHRAN && destinationCityId !== TEHRAN) hubs.push(TEHRAN);
  return hubs.filter((h) => h !== originCityId && h !== destinationCityId);
}

function minConnectionMs(arrivingAt: string, departingFrom: string): number {
  return (arrivingAt === departingFrom ? MIN_CONNECTION_MINUTES : MIN_AIRPORT_CHANGE_MINUTES) * MINUTE_MS;
}

/**
 * Every itinerary from one city to another whose first flight leaves on `date` (UTC) and
 * that offers `cabin` on each segment, before the "cheaper alternative" filter.
 */
function candidateLegs(originCityId: number, destinationCityId: number, date: string, cabin: Cabin): { direct: Leg[]; connecting: Leg[] } {
  const hasCabin = (f: Flight) => f.cabins.includes(cabin);
  const direct = flightsBetween(originCityId, destinationCityId)
    .filter(hasCabin)
    .map((f) => [segmentOn(f, date)]);
  const connecting: Leg[] = [];
  for (const hub of hubsFor(originCityId, destinationCityId)) {
    const onward = flightsBetween(hub, destinationCityId).filter(hasCabin);
    if (onward.length === 0) continue;
    for (const first of flightsBetween(originCityId, hub).filter(hasCabin)) {
      const s1 = segmentOn(first, date);
      const arrivalDate = new Date(s1.arrival_ms).toISOString().slice(0, 10);
      for (const onDate of [arrivalDate, addDays(arrivalDate, 1)]) {
        for (const second of onward) {
          const s2 = segmentOn(second, onDate);
          const wait = s2.departure_ms - s1.arrival_ms;
          if (wait >= minConnectionMs(first.destination, second.origin) && wait <= MAX_CONNECTION_MINUTES * MINUTE_MS) {
            connecting.push([s1, s2]);
          }
        }
      }
    }
  }
  return { direct, connecting };
}

/**
 * The itineraries offered for one direction: all direct flights, and connections where no
 * direct flight flies the cabin or where the connection is cheaper (by `baseOf`, the
 * itinerary's base fare) than the cheapest direct flight.
 */
export function legsFor(originCityId: number, destinationCityId: number, date: string, cabin: Cabin, baseOf: (leg: Leg) => number): Leg[] {
  const { direct, connecting } = candidateLegs(originCityId, destinationCityId, date, cabin);
  const cheapestDirect = Math.min(...direct.map(baseOf));
  return [...direct, ...connecting.filter((leg) => baseOf(leg) < cheapestDirect)].sort(
    (x, y) => (x[0]?.departure_ms ?? 0) - (y[0]?.departure_ms ?? 0) || x.length - y.length,
  );
}

export function legDeparture(leg: Leg): number {
  return leg[0]?.departure_ms ?? 0;
}

export function legArrival(leg: Leg): number {
  return leg[leg.length - 1]?.arrival_ms ?? 0;
}
