import { callSupplier } from './http';

export interface Occupancy {
  adults: number;
  children_ages: number[];
}

export interface GuestDetails {
  first_name: string;
  last_name: string;
  nationality: string;
  national_id?: string;
  passport_number?: string;
}

export interface Contact {
  phone_number: string;
  email: string;
}

export interface PolicyStep {
  from: string;
  penalty_minor: number;
}

export interface SupplierCity {
  id: number;
  name: string;
  iata_code: string;
  country: string;
  domestic: boolean;
}

export interface SupplierRate {
  rate_key: string;
  room_code: string;
  room_name: string;
  board: string;
  refundable: boolean;
  total_price_minor: number;
  currency: string;
  rooms: number;
  max_occupancy: number;
}

export interface SupplierHotel {
  hotel_id: number;
  name: string;
  stars: number;
  city_id: number;
  address: string;
  domestic: boolean;
  rates: SupplierRate[];
}

export interface AvailabilityRequest {
  city_id?: number;
  hotel_id?: number;
  check_in: string;
  check_out: string;
  nationality: string;
  rooms: Occupancy[];
  domestic?: boolean;
}

/** The room and stay a rate check or a hold is for. */
interface Stay {
  hotel_id: number;
  hotel_name: string;
  city_id: number;
  room_name: string;
  board: string;
  refundable: boolean;
  check_in: string;
  check_out: string;
  rooms: Occupancy[];
}

export interface RateCheck extends Stay {
  rate_key: string;
  nationality: string;
  total_price_minor: number;
  original_price_minor: number;
  price_changed: boolean;
  currency: string;
  cancellation_policy: PolicyStep[];
  expires_at: string;
}

export interface SupplierHold extends Stay {
  hold_id: string;
  client_reference: string;
  status: 'prebooked' | 'held' | 'confirmed' | 'released' | 'expired' | 'cancelled';
  expires_at: string;
  total_price_minor: number;
  currency: string;
  cancellation_policy: PolicyStep[];
  confirmation_number: string | null;
}

export interface SupplierHotelDetail {
  hotel_id: number;
  name: string;
  stars: number;
  city_id: number;
  city: string | null;
  address: string;
  domestic: boolean;
  rooms: Array<{ room_code: string; room_name: string; max_occupancy: number }>;
  amenities: string[];
  policies: Record<string, string>;
}

/** Port to a hotel bedbank. Reads may be called from the API; holds, confirmations and cancellations only from activities. */
export interface HotelSupplier {
  cities(): Promise<SupplierCity[]>;
  hotel(hotelId: number): Promise<SupplierHotelDetail>;
  availability(req: AvailabilityRequest): Promise<{ search_id: string; hotels: SupplierHotel[] }>;
  checkRate(rateKey: string, scenario?: string): Promise<RateCheck>;
  createHold(req: { rateKey: string; clientReference: string; guests?: GuestDetails[][]; contact?: Contact; scenario?: string }): Promise<SupplierHold>;
  addGuests(holdId: string, guests: GuestDetails[][], contact: Contact): Promise<SupplierHold>;
  confirm(holdId: string, clientReference: string, scenario?: string): Promise<SupplierHold>;
  release(holdId: string): Promise<SupplierHold>;
  /** A hold as the bedbank has it now (confirmed or not). */
  getHold(holdId: string): Promise<SupplierHold>;
  cancel(confirmationNumber: string, clientReference: string, scenario?: string): Promise<{ status: string }>;
}

export function httpHotelSupplier(baseUrl: string): HotelSupplier {
  const url = (path: string) => `${baseUrl}/hotels${path}`;
  const hold = (id: string, action: string) => url(`/holds/${encodeURIComponent(id)}/${action}`);
  return {
    cities: async () => (await callSupplier<{ cities: SupplierCity[] }>(url('/cities'), { method: 'GET' })).cities,
    hotel: (hotelId) => callSupplier(url(`/${hotelId}`), { method: 'GET' }),
    availability: (req) => callSupplier(url('/availability'), { method: 'POST', body: req, timeoutMs: 30_000 }),
    checkRate: (rateKey, scenario) => callSupplier(url('/rates/check'), { method: 'POST', body: { rate_key: rateKey }, scenario, timeoutMs: 30_000 }),
    createHold: (req) =>
      callSupplier(url('/holds'), {
        method: 'POST',
        scenario: req.scenario,
        body: { rate_key: req.rateKey, client_reference: req.clientReference, guests: req.guests, contact: req.contact },
      }),
    addGuests: (holdId, guests, contact) => callSupplier(hold(holdId, 'guests'), { method: 'POST', body: { guests, contact } }),
    confirm: (holdId, clientReference, scenario) =>
      callSupplier(hold(holdId, 'confirm'), { method: 'POST', body: { client_reference: clientReference }, scenario }),
    release: (holdId) => callSupplier(hold(holdId, 'release'), { method: 'POST', body: {} }),
    getHold: (holdId) => callSupplier(url(`/holds/${encodeURIComponent(holdId)}`), { method: 'GET' }),
    cancel: (confirmationNumber, clientReference, scenario) =>
      callSupplier(url(`/bookings/${encodeURIComponent(confirmationNumber)}/cancel`), {
        method: 'POST',
        body: { client_reference: clientReference },
        scenario,
      }),
  };
}
