/// <reference types="@duffel/api" />
import type {
  CabinClass,
  ConfirmOrderChangePayment,
  CreateOrderChangeParameters,
  CreateOrderChangeRequest,
  OfferRequest,
  OrderChange,
  OrderChangeOffer,
  OrderChangeRequestResponse,
  OrderSlice,
  Place,
} from '@duffel/api/types';
import { z } from 'zod';
import type { Account } from './account';
import { invalidState, linkedNotFound, notFound, offerNoLongerAvailable, StandInError, validation } from './errors';
import { actionsOf, orderSliceOf, type Flights } from './flights';
import { newId, paginate, parseBody, type Page } from './http';
import { formatMinor, parseMinor } from './money';

/** The slices a change adds and removes, in the order's own slice shape. */
export interface StandInChangeSlices {
  add: OrderSlice[];
  remove: OrderSlice[];
}

/**
 * An order change offer as the reference gives it: `order_change_id` null until a change is
 * made from it, the airline's penalty as `penalty_total_amount`, `live_mode`, and slices in the
 * order's slice shape (the SDK's type names the penalty `penalty_amount` and wants a seat on
 * every segment passenger).
 */
export type StandInOrderChangeOffer = Omit<OrderChangeOffer, 'order_change_id' | 'penalty_amount' | 'penalty_currency' | 'slices' | 'refund_to'> & {
  live_mode: boolean;
  order_change_id: string | null;
  penalty_total_amount: string;
  penalty_total_currency: string;
  refund_to: 'balance';
  slices: StandInChangeSlices;
};

/** An order change request as the reference gives it: with `created_at` and `updated_at`, and the offers above. */
export type StandInOrderChangeRequest = Omit<OrderChangeRequestResponse, 'order_change_offers'> & {
  created_at: string;
  updated_at: string;
  order_change_offers: StandInOrderChangeOffer[];
};

/** An order change: `refund_to` is where a negative `change_total_amount` goes (the balance), null when nothing is refunded. */
export type StandInOrderChange = Omit<OrderChange, 'refund_to' | 'slices'> & { refund_to: 'balance' | null; slices: StandInChangeSlices };

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD');
const iata = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter IATA code');
const cabin = z.enum(['first', 'business', 'premium_economy', 'economy']);

const requestSchema: z.ZodType<CreateOrderChangeRequest> = z.object({
  order_id: z.string().startsWith('ord_'),
  slices: z.object({
    remove: z.array(z.object({ slice_id: z.string().min(1) })).max(4),
    add: z.array(z.object({ origin: iata, destination: iata, departure_date: date, cabin_class: cabin.nullable().optional() })).max(4),
  }),
});

const changeSchema: z.ZodType<CreateOrderChangeParameters> = z.object({ selected_order_change_offer: z.string().startsWith('oco_') });

const confirmSchema: z.ZodType<ConfirmOrderChangePayment> = z.object({
  payment: z.object({ type: z.enum(['balance', 'arc_bsp_cash']), amount: z.string(), currency: z.string().regex(/^[A-Z]{3}$/) }).optional(),
});

/** Ages an offer request takes for a passenger of each type (it needs an age for a child or an infant). */
const SEARCH_PASSENGER = { adult: { type: 'adult' as const }, child: { age: 8 }, infant_without_seat: { age: 1 } };

interface ChangeOfferRecord {
  offer: StandInOrderChangeOffer;
  requestId: string;
  orderId: string;
  changeMinor: number;
  newFareMinor: number;
}

interface ChangeRecord {
  change: StandInOrderChange;
  offerId: string;
}

export interface OrderChangesOptions {
  now: () => Date;
  account: Account;
  flights: Flights;
  /** How long a change offer (and a change made from it) can be confirmed. */
  changeOfferTtlSeconds: number;
}

/**
 * Duffel's order changes: a request searches for the slices to add and prices each way of
 * doing it (the fare difference plus the airline's penalty); a change is made from one offer,
 * then confirmed with a balance payment when it costs something, or with none when it costs
 * nothing or refunds (the refund goes to the balance). Confirmed, the order has the new
 * slices and new tickets.
 */
export class OrderChanges {
  private readonly requests = new Map<string, StandInOrderChangeRequest>();
  private readonly offers = new Map<string, ChangeOfferRecord>();
  private readonly changes = new Map<string, ChangeRecord>();

  constructor(private readonly opts: OrderChangesOptions) {}

  private nowIso(): string {
    return this.opts.now().toISOString();
  }

  private expired(at: string): boolean {
    return Date.parse(at) <= this.opts.now().getTime();
  }

  createRequest(data: unknown): StandInOrderChangeRequest {
    const body = parseBody(requestSchema, data);
    const record = this.opts.flights.currentOrder(body.order_id, 'order_id');
    const { order } = record;
    if (order.cancelled_at) throw invalidState('already_cancelled', 'Order already cancelled', 'The order has been cancelled and can no longer be changed.');
    if (!order.available_actions.includes('change')) {
      throw invalidState('order_change_not_allowed', 'Change not allowed', "The order's fare does not allow changes, or the order is not paid for yet.");
    }
    const { remove, add } = body.slices;
    if (remove.length === 0 && add.length === 0) {
      throw validation('validation_required', 'slices', '/slices', 'Give the slices to remove, to add, or both');
    }
    const removed = remove.map((r, i) => {
      const slice = order.slices.find((s) => s.id === r.slice_id);
      if (!slice) throw linkedNotFound('slice_id', `/slices/remove/${i}/slice_id`);
      return slice;
    });
    if (new Set(remove.map((r) => r.slice_id)).size !== remove.length) {
      throw validation('validation_format', 'remove', '/slices/remove', 'Each slice can be removed once');
    }
    const currency = order.total_currency;
    const removedShareMinor = Math.round((record.fareMinor * removed.length) / order.slices.length);
    const change = order.conditions.change_before_departure;
    const penaltyMinor = change?.penalty_amount ? (parseMinor(change.penalty_amount, currency) ?? 0) : 0;
    const now = this.nowIso();
    const expiresAt = new Date(this.opts.now().getTime() + this.opts.changeOfferTtlSeconds * 1000).toISOString();
    const id = newId('ocr');

    // Each way to fly the added slices is one of the airline's offers for them (the three fares at their times).
    const options = add.length === 0 ? [null] : this.searchAdded(record.order.passengers, add, cabinOf(order.slices));
    const offers = options.map((found): ChangeOfferRecord => {
      if (found && found.total_currency !== currency) {
        throw validation('validation_format', 'add', '/slices/add', `The stand-in changes an order in its own currency (${currency}) only`);
      }
      const addedMinor = found ? parseMinor(found.total_amount, currency)! : 0;
      const changeMinor = addedMinor - removedShareMinor + penaltyMinor;
      const newFareMinor = record.fareMinor - removedShareMinor + addedMinor;
      const passengerOf = new Map(found?.passengers.map((p, i) => [p.id, order.passengers[i]!.id]));
      const offer: StandInOrderChangeOffer = {
        id: newId('oco'),
        live_mode: false,
        created_at: now,
        updated_at: now,
        expires_at: expiresAt,
        order_change_id: null,
        change_total_amount: formatMinor(changeMinor, currency),
        change_total_currency: currency,
        new_total_amount: formatMinor(newFareMinor, currency),
        new_total_currency: currency,
        penalty_total_amount: formatMinor(penaltyMinor, currency),
        penalty_total_currency: currency,
        refund_to: 'balance',
        slices: { remove: removed, add: (found?.slices ?? []).map((s) => orderSliceOf(s, (pid) => passengerOf.get(pid) ?? pid)) },
      };
      return { offer, requestId: id, orderId: order.id, changeMinor, newFareMinor };
    });
    for (const o of offers) this.offers.set(o.offer.id, o);
    const places = options[0]?.slices ?? [];
    const request: StandInOrderChangeRequest = {
      id,
      live_mode: false,
      created_at: now,
      updated_at: now,
      order_id: order.id,
      slices: {
        remove: remove.map((r) => ({ slice_id: r.slice_id })),
        add: add.map((a, i) => ({
          departure_date: a.departure_date,
          origin: places[i]?.origin as Place,
          destination: places[i]?.destination as Place,
          cabin_class: a.cabin_class ?? null,
        })),
      },
      order_change_offers: offers.map((o) => o.offer),
    };
    this.requests.set(id, request);
    return request;
  }

  /** The airline's offers for the added slices, for the order's passengers, cheapest first. */
  private searchAdded(
    passengers: Array<{ type: keyof typeof SEARCH_PASSENGER }>,
    add: CreateOrderChangeRequest['slices']['add'],
    orderCabin: CabinClass,
  ): OfferRequest['offers'] {
    try {
      const found = this.opts.flights.createOfferRequest(
        {
          slices: add.map((a) => ({
            origin: a.origin,
            destination: a.destination,
            departure_date: a.departure_date,
            departure_time: null,
            arrival_time: null,
          })),
          passengers: passengers.map((p) => SEARCH_PASSENGER[p.type]),
          cabin_class: add[0]?.cabin_class ?? orderCabin,
        },
        true,
      ) as OfferRequest;
      return found.offers;
    } catch (err) {
      // The search's own refusal, pointed at the change request's field.
      if (err instanceof StandInError && err.source) {
        throw new StandInError(err.status, err.type, err.code, err.title, err.message, {
          field: err.source.field,
          pointer: err.source.pointer.replace(/^\/slices\//, '/slices/add/'),
        });
      }
      throw err;
    }
  }

  getRequest(id: string): StandInOrderChangeRequest {
    const request = this.requests.get(id);
    if (!request) throw notFound();
    return { ...request, order_change_offers: request.order_change_offers.map((o) => this.offers.get(o.id)!.offer) };
  }

  getOffer(id: string): StandInOrderChangeOffer {
    const record = this.offers.get(id);
    if (!record) throw notFound();
    return record.offer;
  }

  listOffers(query: Record<string, string>): Page<StandInOrderChangeOffer> {
    const requestId = query.order_change_request_id;
    if (!requestId) {
      throw validation('validation_required', 'order_change_request_id', '/order_change_request_id', "Field 'order_change_request_id' can't be blank");
    }
    if (!this.requests.has(requestId)) throw notFound();
    const offers = [...this.offers.values()].filter((o) => o.requestId === requestId).map((o) => o.offer);
    return paginate(offers, query);
  }

  /** A pending change from the offer; an offer expired, used already, or no longer matching the order is no longer available. */
  createChange(data: unknown): StandInOrderChange {
    const body = parseBody(changeSchema, data);
    const record = this.offers.get(body.selected_order_change_offer);
    if (!record) throw linkedNotFound('selected_order_change_offer');
    const { order } = this.opts.flights.currentOrder(record.orderId);
    if (order.cancelled_at) throw invalidState('already_cancelled', 'Order already cancelled', 'The order has been cancelled and can no longer be changed.');
    const stillThere = record.offer.slices.remove.every((r) => order.slices.some((s) => s.id === r.id));
    if (record.offer.order_change_id || this.expired(record.offer.expires_at) || !stillThere) throw offerNoLongerAvailable();
    const now = this.nowIso();
    const change: StandInOrderChange = {
      id: newId('oce'),
      live_mode: false,
      order_id: record.orderId,
      created_at: now,
      confirmed_at: null,
      expires_at: record.offer.expires_at,
      change_total_amount: record.offer.change_total_amount!,
      change_total_currency: record.offer.change_total_currency!,
      new_total_amount: record.offer.new_total_amount!,
      new_total_currency: record.offer.new_total_currency,
      penalty_total_amount: record.offer.penalty_total_amount,
      penalty_total_currency: record.offer.penalty_total_currency,
      refund_to: record.changeMinor < 0 ? 'balance' : null,
      slices: record.offer.slices,
      available_payment_types: record.changeMinor > 0 ? ['balance'] : null,
    };
    this.changes.set(change.id, { change, offerId: record.offer.id });
    record.offer = { ...record.offer, order_change_id: change.id, updated_at: now };
    return change;
  }

  getChange(id: string): StandInOrderChange {
    const record = this.changes.get(id);
    if (!record) throw notFound();
    return record.change;
  }

  /**
   * Confirms a pending change: a positive total is paid from the balance (exactly, in its
   * currency); a zero or negative one takes no payment, and a negative one is refunded to the
   * balance. The order then has the new slices, its new total and new tickets.
   */
  confirmChange(id: string, data: unknown): StandInOrderChange {
    const body = parseBody(confirmSchema, data ?? {});
    const record = this.changes.get(id);
    if (!record) throw notFound();
    const offer = this.offers.get(record.offerId)!;
    const { change } = record;
    if (change.confirmed_at)
      throw invalidState('order_change_already_confirmed', 'Order change already confirmed', 'This order change has already been confirmed.');
    if (this.expired(change.expires_at))
      throw invalidState('order_change_expired', 'Order change expired', 'This order change has expired; request a new one.');
    const orderRecord = this.opts.flights.currentOrder(change.order_id);
    const { order } = orderRecord;
    if (order.cancelled_at) throw invalidState('already_cancelled', 'Order already cancelled', 'The order has been cancelled and can no longer be changed.');
    const currency = change.change_total_currency;
    if (offer.changeMinor > 0) {
      if (!body.payment) throw validation('validation_required', 'payment', '/payment', 'A change that costs something is confirmed with a payment');
      this.opts.flights.checkAmount(body.payment.amount, body.payment.currency, change.change_total_amount, currency, '/payment');
      this.opts.account.debit(currency, offer.changeMinor, change.id, 'order_payment');
    } else if (body.payment) {
      throw validation('validation_format', 'payment', '/payment', 'A change that costs nothing or is refunded is confirmed without a payment');
    } else if (offer.changeMinor < 0) {
      this.opts.account.credit(currency, -offer.changeMinor, change.id, 'order_refund');
    }
    const now = this.nowIso();
    const servicesMinor = parseMinor(order.total_amount, currency)! - orderRecord.fareMinor;
    const removedIds = new Set(change.slices.remove.map((s) => s.id));
    const at = order.slices.findIndex((s) => removedIds.has(s.id));
    const kept = order.slices.filter((s) => !removedIds.has(s.id));
    const slices = [...kept.slice(0, at < 0 ? kept.length : at), ...change.slices.add, ...kept.slice(at < 0 ? kept.length : at)];
    const changed = {
      ...order,
      synced_at: now,
      slices,
      total_amount: formatMinor(offer.newFareMinor + servicesMinor, currency),
      documents: this.opts.flights.tickets(order.passengers.map((p) => p.id)),
    };
    orderRecord.order = { ...changed, available_actions: actionsOf(changed) };
    orderRecord.fareMinor = offer.newFareMinor;
    if (offer.changeMinor > 0) {
      this.opts.flights.payments.push({ id: newId('pay'), order_id: order.id, amount: change.change_total_amount, currency, type: 'balance', created_at: now });
    }
    record.change = { ...change, confirmed_at: now };
    return record.change;
  }

  // ---- controls ----

  /** The change offer (and any change made from it) is past its expiry now. */
  expireOffer(id: string): void {
    const record = this.offers.get(id);
    if (!record) throw notFound();
    const past = new Date(this.opts.now().getTime() - 1000).toISOString();
    record.offer = { ...record.offer, expires_at: past };
    for (const c of this.changes.values()) if (c.offerId === id && !c.change.confirmed_at) c.change = { ...c.change, expires_at: past };
  }
}

const cabinOf = (slices: OrderSlice[]): CabinClass => (slices[0]?.segments[0]?.passengers[0]?.cabin_class as CabinClass | undefined) ?? 'economy';
