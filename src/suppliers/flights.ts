import { callSupplier } from './http';

export type Cabin = 'economy' | 'premium_economy' | 'business' | 'first';
export type PassengerType = 'ADT' | 'CHD' | 'INF';

export interface Segment {
  flight_number: string;
  airline: string;
  airline_name: string;
  origin: string;
  destination: string;
  departure: string;
  arrival: string;
  cabin: Cabin;
  booking_class: string;
}

export interface Leg {
  segments: Segment[];
}

export interface PriceLine {
  passenger_type: PassengerType;
  count: number;
  base_minor: number;
  tax_minor: number;
}

export interface Offer {
  fare_source_code: string;
  total_price_minor: number;
  currency: string;
  refundable: boolean;
  fare_family: string;
  cabin: Cabin;
  legs: Leg[];
  price_breakdown: PriceLine[];
  seats_left: number;
}

export interface Airport {
  code: string;
  name: string;
  city: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  /** The hotel side's city id: one city may have several airports (Tehran has THR and IKA). */
  city_id: number;
}

export interface FlightSearch {
  origin: string;
  destination: string;
  departure_date: string;
  return_date?: string;
  adults: number;
  children: number;
  infants: number;
  cabin: Cabin;
}

export interface Revalidation {
  is_valid: boolean;
  fare_source_code: string;
  total_price_minor: number;
  original_price_minor: number;
  price_changed: boolean;
  currency: string;
  seats_left: number;
  legs: Leg[];
  passengers: { adults: number; children: number; infants: number };
}

export interface FareRules {
  fare_family: string;
  refundable: boolean;
  refund_penalty_minor: number;
  change_penalty_minor: number;
  rules: Array<{ category: string; allowed: boolean; penalty_minor: number; text: string }>;
}

export interface Baggage {
  baggage: Array<{ passenger_type: PassengerType; checked: { pieces: number; weight_kg: number }; cabin: { pieces: number; weight_kg: number } }>;
}

export interface Traveler {
  first_name: string;
  last_name: string;
  birth_date: string;
  gender: 'male' | 'female';
  passenger_type: PassengerType;
  nationality: string;
  national_id?: string;
  passport_number?: string;
  passport_expiry_date?: string;
}

export interface AirBooking {
  booking_ref: string;
  client_reference: string;
  pnr: string;
  status: 'booked' | 'ticketed' | 'cancelled' | 'expired' | 'refunded';
  ticket_time_limit: string;
  total_price_minor: number;
  currency: string;
  fare_family: string;
  refundable: boolean;
  refund_penalty_minor: number;
  cabin: Cabin;
  legs: Leg[];
  travelers: Traveler[];
  tickets: Array<{ traveler_index: number; first_name: string; last_name: string; passenger_type: PassengerType; ticket_number: string }>;
  refunded_minor?: number;
  penalty_minor?: number;
}

/** Port to an airline / GDS. Reads may be called from the API; bookings, tickets and refunds only from activities. */
export interface FlightSupplier {
  airports(): Promise<Airport[]>;
  search(req: FlightSearch): Promise<{ search_id: string; offers: Offer[] }>;
  revalidate(fareSourceCode: string, scenario?: string): Promise<Revalidation>;
  rules(fareSourceCode: string): Promise<FareRules>;
  baggage(fareSourceCode: string): Promise<Baggage>;
  book(req: { fareSourceCode: string; clientReference: string; travelers: Traveler[]; contact: { phone_number: string; email: string } }): Promise<AirBooking>;
  ticket(pnr: string, clientReference: string, scenario?: string): Promise<AirBooking>;
  cancel(pnr: string): Promise<AirBooking>;
  refund(pnr: string, clientReference: string, scenario?: string): Promise<AirBooking>;
  /** A booking as the airline has it now (ticketed or not). */
  booking(pnr: string): Promise<AirBooking>;
}

export function httpFlightSupplier(baseUrl: string): FlightSupplier {
  const url = (path: string) => `${baseUrl}/air${path}`;
  const pnrUrl = (pnr: string, action: string) => url(`/bookings/${encodeURIComponent(pnr)}/${action}`);
  const code = (fareSourceCode: string) => ({ fare_source_code: fareSourceCode });
  return {
    airports: async () => (await callSupplier<{ airports: Airport[] }>(url('/airports'), { method: 'GET' })).airports,
    search: (req) => callSupplier(url('/search'), { method: 'POST', body: req, timeoutMs: 30_000 }),
    revalidate: (fsc, scenario) => callSupplier(url('/revalidate'), { method: 'POST', body: code(fsc), scenario, timeoutMs: 30_000 }),
    rules: (fsc) => callSupplier(url('/rules'), { method: 'POST', body: code(fsc) }),
    baggage: (fsc) => callSupplier(url('/baggage'), { method: 'POST', body: code(fsc) }),
    book: (req) =>
      callSupplier(url('/bookings'), {
        method: 'POST',
        body: { fare_source_code: req.fareSourceCode, client_reference: req.clientReference, travelers: req.travelers, contact: req.contact },
      }),
    ticket: (pnr, clientReference, scenario) => callSupplier(pnrUrl(pnr, 'ticket'), { method: 'POST', body: { client_reference: clientReference }, scenario }),
    cancel: (pnr) => callSupplier(pnrUrl(pnr, 'cancel'), { method: 'POST', body: {} }),
    refund: (pnr, clientReference, scenario) => callSupplier(pnrUrl(pnr, 'refund'), { method: 'POST', body: { client_reference: clientReference }, scenario }),
    booking: (pnr) => callSupplier(url(`/bookings/${encodeURIComponent(pnr)}`), { method: 'GET' }),
  };
}
