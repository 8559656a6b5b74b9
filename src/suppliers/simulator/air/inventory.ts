/**
 * The simulated airline/GDS's static inventory: 13 airports in 12 cities, 9 airlines and
 * a daily timetable. Everything is a pure function of the tables below, so every process
 * sees the same flights at the same times with the same numbers.
 */
import { stableHash } from '../hotels/inventory';

/** An airport as the airline's API answers it: its city is the hotel side's city id (Tehran's THR and IKA share one). */
export interface Airport {
  code: string;
  name: string;
  city: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  city_id: number;
}

export const AIRPORTS: readonly Airport[] = [
  { code: 'THR', name: 'Mehrabad International Airport', city: 'Tehran', country: 'IR', city_id: 1 },
  { code: 'IKA', name: 'Imam Khomeini International Airport', city: 'Tehran', country: 'IR', city_id: 1 },
  { code: 'MHD', name: 'Mashhad Shahid Hasheminejad International Airport', city: 'Mashhad', country: 'IR', city_id: 2 },
  { code: 'IFN', name: 'Isfahan Shahid Beheshti International Airport', city: 'Isfahan', country: 'IR', city_id: 3 },
  { code: 'SYZ', name: 'Shiraz Shahid Dastgheib International Airport', city: 'Shiraz', country: 'IR', city_id: 4 },
  { code: 'KIH', name: 'Kish International Airport', city: 'Kish', country: 'IR', city_id: 5 },
  { code: 'TBZ', name: 'Tabriz Shahid Madani International Airport', city: 'Tabriz', country: 'IR', city_id: 6 },
  { code: 'IST', name: 'Istanbul Airport', city: 'Istanbul', country: 'TR', city_id: 7 },
  { code: 'DXB', name: 'Dubai International Airport', city: 'Dubai', country: 'AE', city_id: 8 },
  { code: 'AYT', name: 'Antalya Airport', city: 'Antalya', country: 'TR', city_id: 9 },
  { code: 'TBS', name: 'Tbilisi International Airport', city: 'Tbilisi', country: 'GE', city_id: 10 },
  { code: 'EVN', name: 'Zvartnots International Airport', city: 'Yerevan', country: 'AM', city_id: 11 },
  { code: 'GYD', name: 'Heydar Aliyev International Airport', city: 'Baku', country: 'AZ', city_id: 12 },
];

export const AIRLINE_CODES = ['IR', 'W5', 'EP', 'QB', 'TK', 'FZ', 'EK', 'J2', 'A9'] as const;
export type AirlineCode = (typeof AIRLINE_CODES)[number];

export interface Airline {
  code: AirlineCode;
  name: string;
  /** The IATA accounting code: the first 3 digits of the airline's ticket numbers. */
  ticket_prefix: string;
  /** The airline's price level against the route's base fare, in percent. */
  price_percent: number;
}

export const AIRLINES: Record<AirlineCode, Airline> = {
  IR: { code: 'IR', name: 'Iran Air', ticket_prefix: '096', price_percent: 100 },
  W5: { code: 'W5', name: 'Mahan Air', ticket_prefix: '537', price_percent: 104 },
  EP: { code: 'EP', name: 'Aseman', ticket_prefix: '815', price_percent: 96 },
  QB: { code: 'QB', name: 'Qeshm Air', ticket_prefix: '492', price_percent: 94 },
  TK: { code: 'TK', name: 'Turkish Airlines', ticket_prefix: '235', price_percent: 106 },
  FZ: { code: 'FZ', name: 'flydubai', ticket_prefix: '141', price_percent: 90 },
  EK: { code: 'EK', name: 'Emirates', ticket_prefix: '176', price_percent: 112 },
  J2: { code: 'J2', name: 'Azerbaijan Airlines', ticket_prefix: '771', price_percent: 100 },
  A9: { code: 'A9', name: 'Georgian Airways', ticket_prefix: '606', price_percent: 95 },
};

export const CABINS = ['economy', 'premium_economy', 'business', 'first'] as const;
export type Cabin = (typeof CABINS)[number];

/** [airport a, airport b, block minutes, economy base fare a↔b per adult in Toman excl. tax, carriers, flights a day each way]. */
type RouteSeed = readonly [string, string, number, number, readonly AirlineCode[], 2 | 3 | 4];

const ROUTE_SEEDS: readonly RouteSeed[] = [
  // Domestic: every pair of Iranian cities, Tehran through Mehrabad (THR).
  ['THR', 'MHD', 80, 2_190_000, ['IR', 'W5', 'EP', 'QB'], 4],
  ['THR', 'IFN', 60, 1_600_000, ['IR', 'EP', 'W5'], 3],
  ['THR', 'SYZ', 85, 2_000_000, ['IR', 'W5', 'EP'], 4],
  ['THR', 'KIH', 110, 2_600_000, ['IR', 'QB', 'W5', 'EP'], 4],
  ['THR', 'TBZ', 70, 1_750_000, ['IR', 'EP', 'W5'], 3],
  ['MHD', 'IFN', 95, 2_100_000, ['IR', 'EP'], 2],
  ['MHD', 'SYZ', 110, 2_400_000, ['IR', 'W5'], 2],
  ['MHD', 'KIH', 120, 2_700_000, ['QB', 'W5'], 2],
  ['MHD', 'TBZ', 130, 2_600_000, ['IR', 'EP'], 2],
  ['IFN', 'SYZ', 55, 1_500_000, ['EP', 'IR'], 2],
  ['IFN', 'KIH', 80, 2_100_000, ['QB', 'EP'], 2],
  ['IFN', 'TBZ', 85, 1_900_000, ['IR', 'EP'], 2],
  ['SYZ', 'KIH', 50, 1_600_000, ['QB', 'IR'], 3],
  ['SYZ', 'TBZ', 115, 2_400_000, ['IR', 'W5'], 2],
  ['KIH', 'TBZ', 140, 2_900_000, ['QB', 'EP'], 2],
  // Tehran (Imam Khomeini, IKA) to every foreign city.
  ['IKA', 'IST', 225, 15_600_000, ['TK', 'IR', 'W5'], 4],
  ['IKA', 'DXB', 120, 7_800_000, ['EK', 'FZ', 'IR', 'W5'], 4],
  ['IKA', 'AYT', 240, 14_500_000, ['W5', 'IR'], 2],
  ['IKA', 'TBS', 140, 8_500_000, ['A9', 'W5'], 2],
  ['IKA', 'EVN', 110, 7_500_000, ['W5', 'EP'], 2],
  ['IKA', 'GYD', 110, 6_900_000, ['J2', 'IR'], 2],
  // Other Iranian cities abroad.
  ['MHD', 'DXB', 150, 8_200_000, ['FZ', 'W5'], 2],
  ['IFN', 'DXB', 120, 7_200_000, ['FZ'], 2],
  ['SYZ', 'DXB', 90, 6_500_000, ['FZ', 'IR'], 3],
  ['KIH', 'DXB', 50, 4_800_000, ['FZ', 'QB'], 3],
  ['MHD', 'IST', 270, 15_000_000, ['TK'], 2],
  ['SYZ', 'IST', 255, 15_200_000, ['TK'], 2],
  ['TBZ', 'IST', 190, 11_800_000, ['TK', 'IR'], 2],
  // Dubai and Istanbul to most foreign cities.
  ['DXB', 'IST', 300, 12_000_000, ['EK', 'TK', 'FZ'], 4],
  ['DXB', 'AYT', 295, 12_500_000, ['FZ'], 2],
  ['DXB', 'TBS', 210, 9_800_000, ['FZ'], 2],
  ['DXB', 'EVN', 200, 9_400_000, ['FZ'], 2],
  ['DXB', 'GYD', 190, 9_000_000, ['FZ', 'J2'], 2],
  ['IST', 'AYT', 80, 3_200_000, ['TK'], 4],
  ['IST', 'TBS', 140, 6_800_000, ['TK', 'A9'], 3],
  ['IST', 'GYD', 190, 8_200_000, ['TK', 'J2'], 3],
];

export interface Route {
  /** Position in ROUTE_SEEDS: part of every flight number on the route. */
  index: number;
  a: string;
  b: string;
  duration_minutes: number;
  /** Economy base fare per adult, excluding tax, in IRT minor units. */
  base_fare_minor: number;
  domestic: boolean;
}

export interface Flight {
  /** e.g. 'W5 1074': stable per route, slot and direction. */
  flight_number: string;
  airline: AirlineCode;
  origin: string;
  destination: string;
  /** Minutes after 00:00Z of the departure date; the flight operates every day. */
  departure_minute: number;
  duration_minutes: number;
  route: Route;
  domestic: boolean;
  cabins: readonly Cabin[];
}

const airportsByCode = new Map(AIRPORTS.map((a) => [a.code, a]));

export function findAirport(code: string): Airport | undefined {
  return airportsByCode.get(code);
}

export function cityOf(code: string): number {
  return airportsByCode.get(code)?.city_id ?? -1;
}

export function isDomesticAirport(code: string): boolean {
  return airportsByCode.get(code)?.country === 'IR';
}

/** Every flight has economy; business on international and on Iran Air's and Mahan's domestic flights. */
function cabinsOf(airline: AirlineCode, domestic: boolean): Cabin[] {
  const cabins: Cabin[] = ['economy'];
  if (!domestic && (airline === 'EK' || airline === 'TK')) cabins.push('premium_economy');
  if (!domestic || airline === 'IR' || airline === 'W5') cabins.push('business');
  if (airline === 'EK') cabins.push('first');
  return cabins;
}

/** First departure 02:30Z (06:00 in Tehran), the day's flights spread over the next 17 hours. */
const FIRST_DEPARTURE_MINUTE = 150;
const DEPARTURE_WINDOW_MINUTES = 1020;

function buildFlights(): Flight[] {
  const flights: Flight[] = [];
  ROUTE_SEEDS.forEach(([a, b, duration, toman, carriers, perDay], index) => {
    const domestic = isDomesticAirport(a) && isDomesticAirport(b);
    const route: Route = { index, a, b, duration_minutes: duration, base_fare_minor: toman * 100, domestic };
    const spacing = Math.floor(DEPARTURE_WINDOW_MINUTES / perDay);
    for (let slot = 0; slot < perDay; slot++) {
      const airline = carriers[slot % carriers.length] as AirlineCode;
      for (const [direction, origin, destination] of [
        [0, a, b],
        [1, b, a],
      ] as const) {
        const jitter = 5 * (stableHash(`departure:${a}-${b}:${slot}:${direction}`) % Math.floor((spacing - 30) / 5));
        const number = (domestic ? 1000 : 100) + index * 8 + slot * 2 + direction;
        flights.push({
          flight_number: `${airline} ${number}`,
          airline,
          origin,
          destination,
          departure_minute: FIRST_DEPARTURE_MINUTE + slot * spacing + jitter,
          duration_minutes: duration,
          route,
          domestic,
          cabins: cabinsOf(airline, domestic),
        });
      }
    }
  });
  return flights.sort((x, y) => x.departure_minute - y.departure_minute || x.flight_number.localeCompare(y.flight_number));
}

export const FLIGHTS: readonly Flight[] = buildFlights();

const flightsByNumber = new Map(FLIGHTS.map((f) => [f.flight_number, f]));

export function findFlight(flightNumber: string): Flight | undefined {
  return flightsByNumber.get(flightNumber);
}

/** Flights from any airport of one city to any airport of another, in departure-time order. */
export function flightsBetween(originCityId: number, destinationCityId: number): Flight[] {
  return FLIGHTS.filter((f) => cityOf(f.origin) === originCityId && cityOf(f.destination) === destinationCityId);
}

/** Seats left in one cabin of one flight on one date before any booking: 4..9. */
export function defaultSeats(flightNumber: string, date: string, cabin: Cabin): number {
  return 4 + (stableHash(`seats:${flightNumber}:${date}:${cabin}`) % 6);
}
