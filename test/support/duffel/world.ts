/// <reference types="@duffel/api" />
// The SDK declares its types as ambient modules in one file; the reference brings `@duffel/api/types` into scope.
import type { Aircraft, Airline, Airport, City, StaysAccommodation } from '@duffel/api/types';

/**
 * The stand-in's static world: Duffel Airways, its aircraft, about twenty airports (the
 * simulator's Iranian ones and a few international hubs) and a few hotels near each city.
 */

export const DUFFEL_AIRWAYS: Airline = {
  id: 'arl_00009VME7DAGiJjwomhv32',
  iata_code: 'ZZ',
  name: 'Duffel Airways',
  logo_lockup_url: null,
  logo_symbol_url: null,
  conditions_of_carriage_url: null,
};

export const AIRCRAFT: Aircraft[] = [
  { id: 'arc_00009UhD4ongolulWd91Ky', iata_code: '320', name: 'Airbus A320' },
  { id: 'arc_00009UhD4ongolulWd91Kz', iata_code: '359', name: 'Airbus A350-900' },
];

/** [iata, icao, name, city code, city name, country, time zone, latitude, longitude] */
type AirportRow = [string, string, string, string, string, string, string, number, number];

const AIRPORT_ROWS: AirportRow[] = [
  ['THR', 'OIII', 'Mehrabad International Airport', 'THR', 'Tehran', 'IR', 'Asia/Tehran', 35.6892, 51.3134],
  ['IKA', 'OIIE', 'Imam Khomeini International Airport', 'THR', 'Tehran', 'IR', 'Asia/Tehran', 35.4161, 51.1522],
  ['MHD', 'OIMM', 'Mashhad Shahid Hasheminejad International Airport', 'MHD', 'Mashhad', 'IR', 'Asia/Tehran', 36.2352, 59.641],
  ['IFN', 'OIFM', 'Isfahan Shahid Beheshti International Airport', 'IFN', 'Isfahan', 'IR', 'Asia/Tehran', 32.7508, 51.8613],
  ['SYZ', 'OISS', 'Shiraz Shahid Dastgheib International Airport', 'SYZ', 'Shiraz', 'IR', 'Asia/Tehran', 29.5392, 52.5899],
  ['KIH', 'OIBK', 'Kish International Airport', 'KIH', 'Kish', 'IR', 'Asia/Tehran', 26.5262, 53.9802],
  ['TBZ', 'OITT', 'Tabriz Shahid Madani International Airport', 'TBZ', 'Tabriz', 'IR', 'Asia/Tehran', 38.1339, 46.235],
  ['LHR', 'EGLL', 'Heathrow Airport', 'LON', 'London', 'GB', 'Europe/London', 51.47, -0.4543],
  ['LGW', 'EGKK', 'Gatwick Airport', 'LON', 'London', 'GB', 'Europe/London', 51.1537, -0.1821],
  ['CDG', 'LFPG', 'Paris Charles de Gaulle Airport', 'PAR', 'Paris', 'FR', 'Europe/Paris', 49.0097, 2.5479],
  ['AMS', 'EHAM', 'Amsterdam Airport Schiphol', 'AMS', 'Amsterdam', 'NL', 'Europe/Amsterdam', 52.3105, 4.7683],
  ['FRA', 'EDDF', 'Frankfurt Airport', 'FRA', 'Frankfurt', 'DE', 'Europe/Berlin', 50.0379, 8.5622],
  ['IST', 'LTFM', 'Istanbul Airport', 'IST', 'Istanbul', 'TR', 'Europe/Istanbul', 41.2753, 28.7519],
  ['DXB', 'OMDB', 'Dubai International Airport', 'DXB', 'Dubai', 'AE', 'Asia/Dubai', 25.2532, 55.3657],
  ['DOH', 'OTHH', 'Hamad International Airport', 'DOH', 'Doha', 'QA', 'Asia/Qatar', 25.2731, 51.6081],
  ['JFK', 'KJFK', 'John F. Kennedy International Airport', 'NYC', 'New York', 'US', 'America/New_York', 40.6413, -73.7781],
  ['EWR', 'KEWR', 'Newark Liberty International Airport', 'NYC', 'New York', 'US', 'America/New_York', 40.6895, -74.1745],
  ['BOS', 'KBOS', 'Logan International Airport', 'BOS', 'Boston', 'US', 'America/New_York', 42.3656, -71.0096],
  ['NRT', 'RJAA', 'Narita International Airport', 'TYO', 'Tokyo', 'JP', 'Asia/Tokyo', 35.772, 140.3929],
  ['HND', 'RJTT', 'Haneda Airport', 'TYO', 'Tokyo', 'JP', 'Asia/Tokyo', 35.5494, 139.7798],
];

/** Metropolitan areas with more than one airport: Duffel gives those airports a `city`. */
const METRO_CODES = new Set(AIRPORT_ROWS.map((r) => r[3]).filter((code, i, all) => all.indexOf(code) !== i));

const cityOf = (row: AirportRow): City => ({
  id: `cit_${row[3].toLowerCase()}_${row[5].toLowerCase()}`,
  iata_code: row[3],
  iata_country_code: row[5],
  name: row[4],
  type: 'city',
});

const airportOf = (row: AirportRow): Airport => ({
  id: `arp_${row[0].toLowerCase()}_${row[5].toLowerCase()}`,
  iata_code: row[0],
  icao_code: row[1],
  name: row[2],
  iata_city_code: row[3],
  city_name: row[4],
  iata_country_code: row[5],
  time_zone: row[6],
  latitude: row[7],
  longitude: row[8],
  city: METRO_CODES.has(row[3]) ? cityOf(row) : null,
  type: 'airport',
});

export const AIRPORTS: Airport[] = AIRPORT_ROWS.map(airportOf);

export const airportByCode = (code: string): Airport | undefined => AIRPORTS.find((a) => a.iata_code === code);

/** A metropolitan area's city with its airports, for searches by city code. */
export function cityByCode(code: string): City | undefined {
  if (!METRO_CODES.has(code)) return undefined;
  const row = AIRPORT_ROWS.find((r) => r[3] === code);
  return row && { ...cityOf(row), airports: AIRPORTS.filter((a) => a.iata_city_code === code) };
}

export function distanceKm(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

/**
 * The currency Duffel Airways prices a route in: USD when it touches the United States,
 * JPY when it touches Japan, GBP otherwise (so conversion has three exponents to handle).
 */
export function routeCurrency(origin: Airport, destination: Airport): string {
  const countries = [origin.iata_country_code, destination.iata_country_code];
  if (countries.includes('JP')) return 'JPY';
  if (countries.includes('US')) return 'USD';
  return 'GBP';
}

/** A hotel of the world: its accommodation (rooms filled in per search) and its nightly price. */
export interface Hotel {
  accommodation: Omit<StaysAccommodation, 'rooms'>;
  /** A standard room's nightly price, in minor units of `currency`. */
  nightlyMinor: number;
  currency: string;
}

/** [city code, name, stars, street, postal code, nightly price in major units, currency, km north and east of the centre] */
type HotelRow = [string, string, number, string, string, number, string, number, number];

const HOTEL_ROWS: HotelRow[] = [
  ['THR', 'Azadi Grand Hotel', 5, 'Chamran Expressway', '1987', 95, 'EUR', 4, 2],
  ['THR', 'Ferdowsi Hotel', 4, 'Ferdowsi Square', '1135', 70, 'EUR', 2, 5],
  ['THR', 'Niayesh Boutique', 3, 'Bahar Street', '1563', 48, 'EUR', -3, 4],
  ['MHD', 'Pardisan Hotel', 5, 'Vakilabad Boulevard', '9177', 80, 'EUR', 2, 1],
  ['MHD', 'Javad Hotel', 4, 'Imam Reza Street', '9134', 55, 'EUR', 3, 3],
  ['IFN', 'Abbasi Hotel', 5, 'Amadegah Street', '8143', 110, 'EUR', 5, 2],
  ['IFN', 'Safir Hotel', 4, 'Chaharbagh Street', '8146', 62, 'EUR', 4, 4],
  ['SYZ', 'Chamran Grand Hotel', 5, 'Chamran Boulevard', '7194', 90, 'EUR', 6, -2],
  ['SYZ', 'Zandiyeh Hotel', 4, 'Zand Boulevard', '7134', 60, 'EUR', 5, 1],
  ['KIH', 'Dariush Grand Hotel', 5, 'Sea Road', '7941', 120, 'EUR', -2, 3],
  ['KIH', 'Toranj Marine Hotel', 5, 'Ferdowsi Boulevard', '7941', 105, 'EUR', 3, -1],
  ['TBZ', 'Pars El Goli Hotel', 5, 'El Goli Road', '5166', 78, 'EUR', -3, 2],
  ['TBZ', 'Darya Hotel', 3, 'Imam Street', '5135', 40, 'EUR', 1, 1],
  ['LON', 'The Strand Palace', 4, '372 Strand', 'WC2R 0JJ', 180, 'GBP', 0, 0],
  ['LON', 'Paddington Court Hotel', 3, '27 Devonshire Terrace', 'W2 3DP', 120, 'GBP', 2, -1],
  ['LON', 'Heathrow Bath Road Inn', 3, '140 Bath Road', 'UB7 0DU', 95, 'GBP', 2, -15],
  ['PAR', 'Hotel du Louvre', 5, 'Place Andre Malraux', '75001', 260, 'EUR', 0, 0],
  ['PAR', 'Hotel Marais Bastille', 3, '36 Boulevard Richard Lenoir', '75011', 140, 'EUR', 1, 2],
  ['IST', 'Pera Palace Hotel', 5, 'Mesrutiyet Caddesi 52', '34430', 190, 'EUR', 0, 0],
  ['IST', 'Sultanahmet Inn', 3, 'Akbiyik Caddesi 20', '34122', 85, 'EUR', -2, 1],
  ['DXB', 'Creek View Hotel', 4, 'Baniyas Road, Deira', '00000', 130, 'GBP', 1, 0],
  ['DXB', 'Marina Tower Suites', 5, 'Al Marsa Street', '00000', 210, 'GBP', -20, -25],
  ['NYC', 'Midtown Park Hotel', 4, '151 West 54th Street', '10019', 240, 'GBP', 0, 0],
  ['NYC', 'Queens Airport Lodge', 3, '144-02 135th Avenue', '11436', 130, 'GBP', -6, 15],
  ['TYO', 'Ginza Garden Hotel', 4, '3-7 Ginza', '104-0061', 150, 'GBP', 0, 0],
  ['TYO', 'Asakusa River Inn', 3, '2-1 Kaminarimon', '111-0034', 90, 'GBP', 4, 2],
];

/** City centres, [latitude, longitude], by IATA city code: hotels sit a few kilometres from them. */
const CITY_CENTRES: Record<string, [number, number]> = {
  THR: [35.6892, 51.389],
  MHD: [36.2972, 59.6067],
  IFN: [32.6539, 51.666],
  SYZ: [29.5918, 52.5837],
  KIH: [26.532, 53.98],
  TBZ: [38.08, 46.2919],
  LON: [51.5074, -0.1278],
  PAR: [48.8566, 2.3522],
  IST: [41.0082, 28.9784],
  DXB: [25.2048, 55.2708],
  NYC: [40.7128, -74.006],
  TYO: [35.6762, 139.6503],
};

function hotelOf(row: HotelRow, index: number): Hotel {
  const [cityCode, name, stars, street, postal, nightly, currency, northKm, eastKm] = row;
  const anchor = AIRPORTS.find((a) => a.iata_city_code === cityCode)!;
  const [centreLat, centreLon] = CITY_CENTRES[cityCode]!;
  const latitude = Number((centreLat + northKm / 111).toFixed(5));
  const longitude = Number((centreLon + eastKm / (111 * Math.cos((centreLat * Math.PI) / 180))).toFixed(5));
  const id = `acc_0000${cityCode}${String(index + 1).padStart(4, '0')}StandIn`;
  return {
    nightlyMinor: nightly * 100,
    currency,
    accommodation: {
      id,
      name,
      rating: stars,
      ratings: [{ source: 'bookingcom', value: stars }],
      review_count: 40 + index * 7,
      review_score: Number((7 + (index % 3) * 0.8).toFixed(1)),
      description: `${name}, a ${stars}-star hotel in ${anchor.city_name}.`,
      email: `reservations@${name.toLowerCase().replace(/[^a-z]+/g, '')}.example`,
      phone_number: '+442080160509',
      amenities: [
        { type: 'wifi', description: 'Free WiFi' },
        { type: 'restaurant', description: 'Restaurant' },
      ],
      chain: null,
      brand: null,
      check_in_information: { check_in_after_time: '14:00', check_out_before_time: '11:00' },
      key_collection: null,
      photos: [],
      supported_loyalty_programme: null,
      location: {
        address: { line_one: street, city_name: anchor.city_name, country_code: anchor.iata_country_code, postal_code: postal },
        geographic_coordinates: { latitude, longitude },
      },
    },
  };
}

export const HOTELS: Hotel[] = HOTEL_ROWS.map(hotelOf);
