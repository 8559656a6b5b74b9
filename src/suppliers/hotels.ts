import type { Money } from './money';

export type { Money } from './money';

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

/** A step of a rate's cancellation timeline: from this moment on, cancelling costs `penalty`. */
export interface PolicyStep {
  from: string;
  penalty: Money;
}

export interface SupplierCity {
  id: number;
  name: string;
  iata_code: string;
  country: string;
  domestic: boolean;
}

/** A room at a price for the searched stay. */
export interface SupplierRate {
  /** The supplier's id of the rate: the partner's `rate_key`. */
  rate_id: string;
  room_code: string;
  room_name: string;
  board: string;
  refundable: boolean;
  total: Money;
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

/** The room and stay a quote or a hold is for. */
export interface Stay {
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

/**
 * A rate priced again: its price is fixed until `expires_at`. `searched_total` is the price
 * the rate was found at, when the supplier can tell it (the simulator signs it into its ids).
 */
export interface RateQuote extends Stay {
  rate_id: string;
  nationality: string;
  total: Money;
  searched_total: Money | null;
  cancellation_timeline: PolicyStep[];
  expires_at: string;
}

export type StayHoldStatus = 'held' | 'booked' | 'released' | 'expired' | 'cancelled';

/** A rate held for us until `expires_at`, then booked (`booking_reference`: the hotel's confirmation number). */
export interface StayHold extends Stay {
  hold_id: string;
  status: StayHoldStatus;
  expires_at: string;
  total: Money;
  cancellation_timeline: PolicyStep[];
  booking_reference: string | null;
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

/**
 * Port to a bedbank or a stays API. Reads (cities, hotels, search, rate checks) may be
 * called from the API; holds, bookings and cancellations only from activities.
 * `clientReference` names a request so that one repeated after a lost answer is the same one.
 */
export interface HotelSupplier {
  /** Which supplier this is (HOTEL_SUPPLIER): recorded on every booking made with it. */
  readonly name: string;
  /** Whether a booking needs the contact's phone number (Interface B carries none). */
  readonly requiresPhone: boolean;
  cities(): Promise<SupplierCity[]>;
  hotel(hotelId: number): Promise<SupplierHotelDetail>;
  /** `fresh`: the answer must come from the supplier now, not from a cache in front of it (a booking looking its room up). */
  search(req: AvailabilityRequest, opts?: { fresh?: boolean }): Promise<{ search_id: string; hotels: SupplierHotel[] }>;
  checkRate(rateId: string): Promise<RateQuote>;
  /** Holds a rate at a fixed price until the hold expires; guests now or later (`addGuests`). */
  hold(req: { rateId: string; clientReference: string; guests?: GuestDetails[][]; contact?: Contact }): Promise<StayHold>;
  addGuests(holdId: string, guests: GuestDetails[][], contact: Contact): Promise<StayHold>;
  /** Books the held rate for its guests: the hold comes back `booked` with its booking reference. */
  book(holdId: string, req: { clientReference: string; guests: GuestDetails[][]; contact?: Contact }): Promise<StayHold>;
  /** A hold as the supplier has it now (booked or not). */
  retrieve(holdId: string): Promise<StayHold>;
  /** Gives an unbooked hold back. */
  release(holdId: string): Promise<StayHold>;
  /** Cancels a booking: what the supplier refunds, when it says. */
  cancel(bookingReference: string, req: { clientReference: string }): Promise<{ status: 'cancelled'; refund: Money | null }>;
}
