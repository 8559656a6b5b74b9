import type { Money } from './money';

export type { Money } from './money';

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

/** What one passenger type costs, in the offer's currency. */
export interface PriceLine {
  passenger_type: PassengerType;
  count: number;
  base_minor: number;
  tax_minor: number;
}

export interface Passengers {
  adults: number;
  children: number;
  infants: number;
}

/** A priced itinerary the airline will sell until `expires_at`. */
export interface Offer {
  /** The supplier's id of the offer: the partner's `fare_source_code`. */
  offer_id: string;
  total: Money;
  /** Until when the airline holds this offer (null: it does not say). */
  expires_at: string | null;
  refundable: boolean;
  fare_family: string;
  cabin: Cabin;
  legs: Leg[];
  price_breakdown: PriceLine[];
  /** Seats the airline still sells at this fare (null: it does not say). */
  seats_left: number | null;
}

export interface Airport {
  code: string;
  name: string;
  city: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  /** The city it serves, one code per city: one city may have several airports (Tehran has THR and IKA). */
  city_code: string;
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

/**
 * An offer priced again. `offer_id` is the one to book: the airline may answer a new one
 * with a new price. `searched_total` is the price the offer was found at, when the supplier
 * can tell it (the simulator signs it into its offer ids).
 */
export interface PricedOffer {
  available: boolean;
  offer_id: string;
  total: Money;
  searched_total: Money | null;
  expires_at: string | null;
  seats_left: number | null;
  legs: Leg[];
  passengers: Passengers;
  /** Whether the airline asks for each traveller's identity document. */
  identity_documents_required: boolean;
}

/** What a change or a refund before departure costs; `penalty` null: no charge, or not allowed. */
export interface Condition {
  allowed: boolean;
  penalty: Money | null;
}

/** The fare's conditions: refund and change before departure, and the airline's own rules. */
export interface FareConditions {
  fare_family: string;
  refund_before_departure: Condition;
  change_before_departure: Condition;
  rules: Array<{ category: string; allowed: boolean; penalty: Money | null; text: string }>;
}

/** A bag allowance: how many pieces, and their weight each (null: the airline does not say). */
export interface Allowance {
  pieces: number;
  weight_kg: number | null;
}

export interface Baggage {
  baggage: Array<{ passenger_type: PassengerType; checked: Allowance; cabin: Allowance }>;
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

export interface Contact {
  phone_number: string;
  email: string;
}

/** `paid`: the airline took the payment and has not issued the tickets yet. */
export type FlightOrderStatus = 'held' | 'paid' | 'issued' | 'cancelled' | 'expired' | 'refunded';

/** An order at the airline: held until `payment_required_by`, then issued (paid, with tickets). */
export interface FlightOrder {
  /** The supplier's id of the order: what every later call names. */
  order_id: string;
  /** The airline's booking reference (PNR), what a traveller quotes at the airport; null until the airline has made the order (Duffel makes one with seats or bags only when it is paid). */
  booking_reference: string | null;
  status: FlightOrderStatus;
  /** The hold's payment deadline (the ticket time limit). */
  payment_required_by: string;
  total: Money;
  fare_family: string;
  refundable: boolean;
  refund_penalty: Money | null;
  cabin: Cabin;
  legs: Leg[];
  tickets: Array<{ traveler_index: number; ticket_number: string }>;
  /** Seats and bags booked on it (absent: none, or a supplier that sells none). */
  services?: BookedService[];
}

export interface ChosenService {
  service_id: string;
  quantity: number;
}

/** A seat or bag booked on an order. */
export interface BookedService {
  service_id: string;
  type: 'seat' | 'baggage';
  traveler_index: number;
  /** `[leg_index, segment_index]` pairs it covers. */
  segments: Array<[number, number]>;
  quantity: number;
  total: Money;
  /** The seat's designator, for a seat. */
  designator?: string;
}

/** What the airline would refund if the order were cancelled now, valid until `expires_at`. */
export interface CancellationQuote {
  quote_id: string;
  order_id: string;
  refund: Money;
  expires_at: string | null;
}

export interface ConfirmedCancellation {
  order_id: string;
  refund: Money;
  confirmed_at: string;
}

/**
 * Port to an airline or a flights API. Reads (airports, search, price, conditions, baggage)
 * may be called from the API; everything that changes an order only from activities.
 * `clientReference` names a request so that one repeated after a lost answer is the same one.
 */
export interface FlightSupplier {
  /** Which supplier this is (FLIGHT_SUPPLIER): recorded on every booking made with it. */
  readonly name: string;
  airports(): Promise<Airport[]>;
  search(req: FlightSearch): Promise<{ search_id: string; offers: Offer[] }>;
  price(offerId: string): Promise<PricedOffer>;
  conditions(offerId: string): Promise<FareConditions>;
  baggage(offerId: string): Promise<Baggage>;
  /** Holds the offer for the travellers: an order to pay by its `payment_required_by`. */
  hold(req: { offerId: string; clientReference: string; travelers: Traveler[]; contact: Contact; services?: ChosenService[] }): Promise<FlightOrder>;
  /**
   * Pays a held order (its amount and currency): the airline issues the tickets. `booking`
   * is what a supplier that makes the order only when it is paid needs to make it.
   */
  issue(
    orderId: string,
    req: { clientReference: string; amount: Money; booking?: { travelers: Traveler[]; contact: Contact; services: ChosenService[] } },
  ): Promise<FlightOrder>;
  /** An order as the airline has it now (issued or not). */
  order(orderId: string): Promise<FlightOrder>;
  /** Gives the seats of an unpaid order back. */
  release(orderId: string): Promise<FlightOrder>;
  quoteCancellation(orderId: string): Promise<CancellationQuote>;
  confirmCancellation(quote: CancellationQuote, req: { clientReference: string }): Promise<ConfirmedCancellation>;
}
