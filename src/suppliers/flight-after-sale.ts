import type { BookedService, Cabin, ChosenService, FlightOrder, Leg, Money } from './flights';

// Chosen and booked services are part of an order, so they are declared with it.
export type { BookedService, ChosenService };

/**
 * What can happen to a flight order after it is sold, as a port: changes a traveller asks
 * for, changes the airline makes, and seats and bags. Reads may be called from the API;
 * everything that changes an order or takes money only from activities. A call that
 * changes something and whose answer is lost is looked up (`findChange`, `scheduleChanges`,
 * `order`) before it is made again: none of these calls takes a client reference at Duffel.
 */
export interface FlightAfterSale {
  /** The changes on offer for replacing the order's legs `remove` (indexes) with `add`. */
  requestChange(orderId: string, req: ChangeSearch): Promise<ChangeRequest>;
  /** The change offer as the airline prices it now (it may have expired). */
  changeOffer(changeOfferId: string): Promise<ChangeOffer>;
  /** Makes a pending change from the offer. */
  createChange(changeOfferId: string): Promise<OrderChange>;
  /** The change made from this offer, if one was (the lookup after a lost answer). */
  findChange(changeOfferId: string): Promise<OrderChange | null>;
  /**
   * Confirms a pending change at `amount`, its `change_total` as it was sold (signed): a
   * positive one is paid from the balance, zero or negative confirms with no payment; an
   * airline that now asks another amount refuses (409). The order then has the new legs and
   * tickets (`order`).
   */
  confirmChange(changeId: string, req: { amount: Money }): Promise<OrderChange>;
  change(changeId: string): Promise<OrderChange>;

  /** The airline's changes to this order, newest last. */
  scheduleChanges(orderId: string): Promise<ScheduleChange[]>;
  /** Accepts the airline's change; accepting one already accepted answers it as it is. */
  acceptScheduleChange(changeId: string): Promise<ScheduleChange>;

  /** Each segment's seat map for an offer, with the seats for sale and their prices. */
  seatMaps(offerId: string): Promise<SeatMap[]>;
  /** The bags (and other services) an offer sells with it. */
  offerServices(offerId: string): Promise<ServiceForSale[]>;
  /** The bags an order may still add. */
  orderServices(orderId: string): Promise<ServiceForSale[]>;
  /** Adds services to an issued order, paying `amount` (their total) from the balance. */
  addServices(orderId: string, req: { services: ChosenService[]; amount: Money }): Promise<FlightOrder>;
}

/** One leg to fly instead: where, when and in which cabin. */
export interface NewLeg {
  origin: string;
  destination: string;
  departure_date: string;
  cabin: Cabin;
}

export interface ChangeSearch {
  /** Indexes into the order's legs, each at most once. */
  remove: number[];
  add: NewLeg[];
}

/**
 * One way to change the order. `change_total` is what the change costs in all: the fare
 * difference plus the `penalty`; negative, it is refunded. `new_total` is what the order
 * costs after it.
 */
export interface ChangeOffer {
  change_offer_id: string;
  order_id: string;
  change_total: Money;
  penalty: Money;
  new_total: Money;
  expires_at: string;
  /** The legs removed (indexes into the order's legs) and those added in their place. */
  remove: number[];
  add: Leg[];
  /** The change already made from this offer, if any. */
  change_id: string | null;
}

export interface ChangeRequest {
  request_id: string;
  order_id: string;
  offers: ChangeOffer[];
}

/** A change made from an offer: pending until confirmed. */
export interface OrderChange {
  change_id: string;
  change_offer_id: string;
  order_id: string;
  change_total: Money;
  penalty: Money;
  new_total: Money;
  expires_at: string;
  confirmed_at: string | null;
}

export type ScheduleChangeAction = 'accept' | 'cancel' | 'change' | 'update';

/** A change the airline made to an order: the legs it removed and those it put instead. */
export interface ScheduleChange {
  change_id: string;
  order_id: string;
  removed: Leg[];
  added: Leg[];
  available_actions: ScheduleChangeAction[];
  action_taken: 'accepted' | 'cancelled' | 'changed' | null;
  action_taken_at: string | null;
  created_at: string;
}

/** A seat whose price to one traveller is a `P`: `SeatPrice` as a supplier sells it, another shape once priced for a partner. */
export interface SeatOf<P> {
  /** Row and column, such as `14C`. */
  designator: string;
  /** Its price to each traveller; empty: not for sale. */
  prices: P[];
  /** Duffel's disclosures (such as "no recline"), as the airline words them. */
  disclosures: string[];
}

/** The service that sells a seat to one traveller (by index in the booking), and at what price. */
export interface SeatPrice {
  service_id: string;
  traveler_index: number;
  price: Money;
}

export type Seat = SeatOf<SeatPrice>;

/** The seats of one segment, by leg and segment index in the offer. */
export interface SeatMapOf<P> {
  leg_index: number;
  segment_index: number;
  cabins: Array<{ cabin: Cabin; rows: Array<{ seats: Array<SeatOf<P>> }> }>;
}

export type SeatMap = SeatMapOf<SeatPrice>;

/** The same seat map with each seat's price to each traveller told as `price` tells it (the one walk over cabins, rows and seats). */
export const mapSeatPrices = <P, Q>(map: SeatMapOf<P>, price: (p: P) => Q): SeatMapOf<Q> => ({
  leg_index: map.leg_index,
  segment_index: map.segment_index,
  cabins: map.cabins.map((c) => ({
    cabin: c.cabin,
    rows: c.rows.map((r) => ({ seats: r.seats.map((s) => ({ designator: s.designator, prices: s.prices.map(price), disclosures: s.disclosures })) })),
  })),
});

/** A bag (or other service) for sale: for these travellers on these segments, up to `max_quantity`. */
export interface ServiceForSale {
  service_id: string;
  type: 'baggage';
  price: Money;
  max_quantity: number;
  traveler_indexes: number[];
  /** `[leg_index, segment_index]` pairs. */
  segments: Array<[number, number]>;
  /** For a bag: checked or carry-on, and its weight (null: the airline does not say). */
  bag: { kind: 'checked' | 'carry_on'; max_weight_kg: number | null };
}
