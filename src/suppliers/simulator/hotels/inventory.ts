/**
 * The simulated bedbank's static inventory: 12 cities, 10 hotels each, 3 room types per
 * hotel. Everything is a pure function of ids, so every process sees the same hotels and
 * prices.
 */

export interface City {
  id: number;
  name: string;
  iata_code: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  /** Iranian cities are domestic: weekends, seasons and foreigners' prices differ there. */
  domestic: boolean;
}

export type RoomCode = 'STD' | 'DLX' | 'FAM' | 'STE';

export interface RoomType {
  room_code: RoomCode;
  room_name: string;
  /** Adults + children a room takes. */
  max_occupancy: number;
  /** Nightly price of the room for two adults, room only, refundable, in IRT minor units. */
  base_price_minor: number;
}

export interface Hotel {
  hotel_id: number;
  name: string;
  stars: 1 | 2 | 3 | 4 | 5;
  city_id: number;
  address: string;
  domestic: boolean;
  rooms: RoomType[];
}

export const CITIES: readonly City[] = [
  { id: 1, name: 'Tehran', iata_code: 'THR', country: 'IR', domestic: true },
  { id: 2, name: 'Mashhad', iata_code: 'MHD', country: 'IR', domestic: true },
  { id: 3, name: 'Isfahan', iata_code: 'IFN', country: 'IR', domestic: true },
  { id: 4, name: 'Shiraz', iata_code: 'SYZ', country: 'IR', domestic: true },
  { id: 5, name: 'Kish', iata_code: 'KIH', country: 'IR', domestic: true },
  { id: 6, name: 'Tabriz', iata_code: 'TBZ', country: 'IR', domestic: true },
  { id: 7, name: 'Istanbul', iata_code: 'IST', country: 'TR', domestic: false },
  { id: 8, name: 'Dubai', iata_code: 'DXB', country: 'AE', domestic: false },
  { id: 9, name: 'Antalya', iata_code: 'AYT', country: 'TR', domestic: false },
  { id: 10, name: 'Tbilisi', iata_code: 'TBS', country: 'GE', domestic: false },
  { id: 11, name: 'Yerevan', iata_code: 'EVN', country: 'AM', domestic: false },
  { id: 12, name: 'Baku', iata_code: 'GYD', country: 'AZ', domestic: false },
];

type Stars = Hotel['stars'];
/** [name, stars, street] per hotel, in hotel-number order (hotel_id = city_id * 100 + n). */
type HotelSeed = readonly [string, Stars, string];

const HOTEL_SEEDS: Record<number, readonly HotelSeed[]> = {
  1: [
    ['Espinas Palace Hotel', 5, 'Bahar Blvd, Saadat Abad'],
    ['Parsian Azadi Hotel', 5, 'Chamran Expressway, Evin'],
    ['Laleh International Hotel', 4, 'Dr Fatemi Ave'],
    ['Enghelab Hotel', 4, 'Taleghani Ave'],
    ['Ferdowsi Grand Hotel', 4, 'Ferdowsi Ave'],
    ['Howeyzeh Hotel', 3, 'Taleghani Ave'],
    ['Atlas Hotel', 3, 'Taleghani Ave'],
    ['Vanak Square Hotel', 3, 'Vanak Sq, Mollasadra St'],
    ['Naderi Hotel', 2, 'Jomhouri Ave'],
    ['Firouzeh Hostel', 1, 'Amir Kabir St'],
  ],
  2: [
    ['Darvishi Royal Hotel', 5, 'Imam Reza St'],
    ['Qasr Talaee Hotel', 5, 'Imam Reza St'],
    ['Homa Mashhad Hotel', 4, 'Khayyam Blvd'],
    ['Pardisan Hotel', 4, 'Pasdaran Ave'],
    ['Atrak Hotel', 4, 'Shirazi St'],
    ['Sinoor Hotel', 3, 'Andarzgoo Blvd'],
    ['Kowsar Hotel', 3, 'Navab Safavi St'],
    ['Javad Hotel', 3, 'Tabarsi St'],
    ['Shohada Square Hotel', 2, 'Shohada Sq'],
    ['Reza Guest House', 1, 'Ab Square'],
  ],
  3: [
    ['Abbasi Hotel', 5, 'Shahid Medani St'],
    ['Kowsar Isfahan Hotel', 5, 'Mellat Blvd'],
    ['Piroozy Hotel', 4, 'Hasht Behesht St'],
    ['Aseman Hotel', 4, 'Kamal Esmaeil St'],
    ['Ali Qapu Hotel', 4, 'Chahar Bagh Abbasi St'],
    ['Safir Hotel', 3, 'Shahid Medani St'],
    ['Julfa Hotel', 3, 'Hakim Nezami St'],
    ['Totia Hotel', 3, 'Sepah St'],
    ['Saadi Hotel', 2, 'Abbas Abad St'],
    ['Amir Kabir Hostel', 1, 'Chahar Bagh Abbasi St'],
  ],
  4: [
    ['Shiraz Grand Hotel', 5, 'Pasdaran Blvd'],
    ['Chamran Grand Hotel', 5, 'Chamran Blvd'],
    ['Homa Shiraz Hotel', 4, 'Meshkinfam St'],
    ['Pars International Hotel', 4, 'Karim Khan Zand Blvd'],
    ['Zandiyeh Hotel', 4, 'Lotf Ali Khan Zand St'],
    ['Karimkhan Hotel', 3, 'Karim Khan Zand Blvd'],
    ['Park Saadi Hotel', 3, 'Bustan St'],
    ['Eram Hotel', 3, 'Eram Blvd'],
    ['Anvari Hotel', 2, 'Anvari St'],
    ['Taha Guest House', 1, 'Hafez St'],
  ],
  5: [
    ['Dariush Grand Hotel', 5, 'Iran Blvd'],
    ['Toranj Marine Hotel', 5, 'Persian Gulf Blvd'],
    ['Shayan Hotel', 4, 'Sanaee Blvd'],
    ['Marjan Hotel', 4, 'Ferdowsi Blvd'],
    ['Sadaf Beach Hotel', 4, 'Khayyam Blvd'],
    ['Flamingo Hotel', 3, 'Sanaee Blvd'],
    ['Tamasha Hotel', 3, 'Ferdowsi Blvd'],
    ['Parmis Hotel', 3, 'Amir Kabir Blvd'],
    ['Iran Hotel', 2, 'Iran Blvd'],
    ['Marina Guest House', 1, 'Saffein St'],
  ],
  6: [
    ['Pars El Goli Hotel', 5, 'El Goli Blvd'],
    ['Shahriar International Hotel', 5, 'Eram Blvd'],
    ['Darya Hotel', 4, 'Shahid Beheshti St'],
    ['Kasra Hotel', 4, 'Rasteh Kucheh St'],
    ['Gostaresh Hotel', 4, 'Valiasr Blvd'],
    ['Tabriz International Hotel', 3, 'Azadi Ave'],
    ['Park Hotel Tabriz', 3, 'Imam Khomeini St'],
    ['Azarbaijan Hotel', 3, 'Shariati St'],
    ['Morvarid Hotel', 2, 'Ferdowsi St'],
    ['Sahand Hostel', 1, 'Tarbiat St'],
  ],
  7: [
    ['Bosphorus Palace Hotel', 5, 'Ciragan Cd., Besiktas'],
    ['Galata Grand Hotel', 5, 'Mesrutiyet Cd., Beyoglu'],
    ['Sultanahmet Crown Hotel', 4, 'Divanyolu Cd., Fatih'],
    ['Taksim Square Suites', 4, 'Cumhuriyet Cd., Sisli'],
    ['Kadikoy Harbour Hotel', 4, 'Rihtim Cd., Kadikoy'],
    ['Pera Garden Hotel', 3, 'Istiklal Cd., Beyoglu'],
    ['Laleli Comfort Hotel', 3, 'Ordu Cd., Fatih'],
    ['Beyazit Inn', 3, 'Yeniceriler Cd., Fatih'],
    ['Aksaray Budget Hotel', 2, 'Millet Cd., Fatih'],
    ['Karakoy Backpackers', 1, 'Kemankes Cd., Beyoglu'],
  ],
  8: [
    ['Palm Crescent Resort', 5, 'Crescent Rd, Palm Jumeirah'],
    ['Marina Skyline Hotel', 5, 'Al Marsa St, Dubai Marina'],
    ['Deira Creek Hotel', 4, 'Baniyas Rd, Deira'],
    ['Al Barsha Plaza Hotel', 4, 'Umm Suqeim St, Al Barsha'],
    ['Bur Dubai Heritage Hotel', 4, 'Khalid Bin Al Waleed Rd, Bur Dubai'],
    ['Al Karama Inn', 3, 'Sheikh Hamdan Colony, Al Karama'],
    ['Naif Souq Hotel', 3, 'Naif Rd, Deira'],
    ['Al Rigga City Hotel', 3, 'Al Rigga Rd, Deira'],
    ['Sabkha Budget Hotel', 2, 'Al Sabkha Rd, Deira'],
    ['Al Fahidi Hostel', 1, 'Al Fahidi St, Bur Dubai'],
  ],
  9: [
    ['Lara Beach Palace', 5, 'Lara Cd., Muratpasa'],
    ['Konyaalti Grand Resort', 5, 'Akdeniz Blv., Konyaalti'],
    ['Kaleici Boutique Hotel', 4, 'Hesapci Sk., Muratpasa'],
    ['Falez Park Hotel', 4, 'Falez Cd., Muratpasa'],
    ['Duden Seaside Hotel', 4, 'Lara Cd., Muratpasa'],
    ['Hadrian Gate Hotel', 3, 'Ataturk Cd., Muratpasa'],
    ['Lara Sun Hotel', 3, 'Guzeloba Cd., Muratpasa'],
    ['Marina Yat Hotel', 3, 'Iskele Cd., Muratpasa'],
    ['Isiklar Pension', 2, 'Isiklar Cd., Muratpasa'],
    ['Old Town Pension', 1, 'Kilincarslan Sk., Muratpasa'],
  ],
  10: [
    ['Rustaveli Grand Hotel', 5, 'Rustaveli Ave'],
    ['Mtkvari Riverside Hotel', 5, 'Kote Afkhazi St'],
    ['Narikala View Hotel', 4, 'Gorgasali St'],
    ['Sololaki Boutique Hotel', 4, 'Leonidze St'],
    ['Vake Park Hotel', 4, 'Chavchavadze Ave'],
    ['Old Tbilisi Hotel', 3, 'Abanotubani St'],
    ['Marjanishvili Hotel', 3, 'Marjanishvili St'],
    ['Freedom Square Inn', 3, 'Pushkin St'],
    ['Avlabari Guest House', 2, 'Metekhi St'],
    ['Fabrika Hostel', 1, 'Egnate Ninoshvili St'],
  ],
  11: [
    ['Republic Square Grand Hotel', 5, 'Amiryan St'],
    ['Ararat View Hotel', 5, 'Northern Ave'],
    ['Cascade Park Hotel', 4, 'Tamanyan St'],
    ['Opera Garden Hotel', 4, 'Tumanyan St'],
    ['Kentron Boutique Hotel', 4, 'Abovyan St'],
    ['Mashtots Hotel', 3, 'Mashtots Ave'],
    ['Vernissage Inn', 3, 'Khanjyan St'],
    ['Hrazdan River Hotel', 3, 'Paronyan St'],
    ['Komitas Guest House', 2, 'Komitas Ave'],
    ['Yerevan Central Hostel', 1, 'Pushkin St'],
  ],
  12: [
    ['Flame Towers Grand Hotel', 5, 'Mehdi Huseyn St'],
    ['Caspian Boulevard Hotel', 5, 'Neftchilar Ave'],
    ['Icherisheher Palace Hotel', 4, 'Kichik Gala St, Old City'],
    ['Fountain Square Hotel', 4, 'Nizami St'],
    ['Sahil Park Hotel', 4, 'Uzeyir Hajibeyov St'],
    ['Nizami Street Hotel', 3, 'Nizami St'],
    ['Ganjlik Inn', 3, 'Ataturk Ave'],
    ['Yasamal Hotel', 3, 'Sharifzade St'],
    ['Narimanov Guest House', 2, 'Tabriz St'],
    ['Old City Hostel', 1, 'Asaf Zeynalli St'],
  ],
};

/** Nightly price of a standard double, room only, by stars, at Tehran's price level (Toman). */
const STAR_BASE_TOMAN: Record<Stars, number> = { 1: 700_000, 2: 1_300_000, 3: 2_500_000, 4: 4_500_000, 5: 8_000_000 };
/** Each city's price level against Tehran's, in percent. */
const CITY_PRICE_PERCENT: Record<number, number> = {
  1: 100,
  2: 90,
  3: 95,
  4: 90,
  5: 120,
  6: 80,
  7: 140,
  8: 190,
  9: 130,
  10: 100,
  11: 95,
  12: 115,
};

interface RoomTemplate {
  room_code: RoomCode;
  room_name: string;
  max_occupancy: number;
  /** Price against the standard room, in percent. */
  percent: number;
}
const STANDARD: RoomTemplate = { room_code: 'STD', room_name: 'Standard Double Room', max_occupancy: 2, percent: 100 };
const DELUXE: RoomTemplate = { room_code: 'DLX', room_name: 'Deluxe Triple Room', max_occupancy: 3, percent: 135 };
const FAMILY: RoomTemplate = { room_code: 'FAM', room_name: 'Family Room', max_occupancy: 4, percent: 160 };
const SUITE: RoomTemplate = { room_code: 'STE', room_name: 'Junior Suite', max_occupancy: 4, percent: 210 };

/** FNV-1a (32 bit): a stable hash, so "random-looking" inventory is a pure function of ids. */
export function stableHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Rounds Toman to whole 10,000s, the way hotels publish rates, and turns it into minor units. */
function toMinor(toman: number): number {
  return Math.round(toman / 10_000) * 10_000 * 100;
}

function buildHotel(city: City, n: number, seed: HotelSeed): Hotel {
  const [name, stars, street] = seed;
  const hotel_id = city.id * 100 + n;
  // ±10% per hotel so that hotels of one class do not all cost the same.
  const jitterPercent = 90 + (stableHash(`hotel:${hotel_id}`) % 21);
  const standardToman = (STAR_BASE_TOMAN[stars] * (CITY_PRICE_PERCENT[city.id] ?? 100) * jitterPercent) / 10_000;
  const templates = [STANDARD, DELUXE, stars >= 4 ? SUITE : FAMILY];
  const houseNumber = 1 + (stableHash(`address:${hotel_id}`) % 180);
  return {
    hotel_id,
    name,
    stars,
    city_id: city.id,
    address: `No. ${houseNumber}, ${street}, ${city.name}`,
    domestic: city.domestic,
    rooms: templates.map((t) => ({
      room_code: t.room_code,
      room_name: t.room_name,
      max_occupancy: t.max_occupancy,
      base_price_minor: toMinor((standardToman * t.percent) / 100),
    })),
  };
}

export const HOTELS: readonly Hotel[] = CITIES.flatMap((city) => (HOTEL_SEEDS[city.id] ?? []).map((seed, i) => buildHotel(city, i + 1, seed)));

const hotelsById = new Map(HOTELS.map((h) => [h.hotel_id, h]));
const citiesById = new Map(CITIES.map((c) => [c.id, c]));

export function findHotel(hotelId: number): Hotel | undefined {
  return hotelsById.get(hotelId);
}

export function findCity(cityId: number): City | undefined {
  return citiesById.get(cityId);
}

export function findRoom(hotel: Hotel, roomCode: string): RoomType | undefined {
  return hotel.rooms.find((r) => r.room_code === roomCode);
}

export function hotelsInCity(cityId: number): Hotel[] {
  return HOTELS.filter((h) => h.city_id === cityId);
}

/** Rooms left for one night before any hold: 2..6, a pure function of hotel, room and date. */
export function defaultAllotment(hotelId: number, roomCode: string, night: string): number {
  return 2 + (stableHash(`allotment:${hotelId}:${roomCode}:${night}`) % 5);
}
