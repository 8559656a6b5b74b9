import type {
  CreateOrder,
  Offer as DuffelOffer,
  Order as DuffelOrder,
  CreateOrderPassenger,
  OrderCancellation,
  Airport as DuffelAirport,
} from '@duffel/api/types';
import { formatMinor } from '../../../platform/currency';
import { SupplierRejectedError, SupplierUnavailableError } from '../../errors';
import type { FlightAfterSale } from '../../flight-after-sale';
import type {
  Airport,
  Baggage,
  BookedService,
  CancellationQuote,
  ChosenService,
  FareConditions,
  FlightOrder,
  FlightSupplier,
  Money,
  PassengerType,
  PricedOffer,
  Traveler,
} from '../../flights';
import { duffelAfterSale } from './after-sale';
import type { DuffelCalls } from './client';
import { fareFamilyOf, moneyOf, offerOf, orderOf, penaltyOf, SEARCH_AGES, segmentPairs, typeOfPassenger } from './mapping';

/** Our traveller as Duffel's order passenger: the offer's passenger of the same type, in order. */
export function passengersFor(offer: DuffelOffer, travelers: Traveler[], contact: { phone_number: string; email: string }): CreateOrderPassenger[] {
  const free = [...offer.passengers];
  return travelers.map((t, i) => {
    const at = free.findIndex((p) => typeOfPassenger(p) === t.passenger_type);
    if (at < 0) throw new SupplierRejectedError(`traveller ${i} is a ${t.passenger_type} the offer was not priced for`, 422);
    const [p] = free.splice(at, 1);
    const documents =
      offer.passenger_identity_documents_required && t.passport_number && t.passport_expiry_date
        ? [{ type: 'passport' as const, unique_identifier: t.passport_number, expires_on: t.passport_expiry_date, issuing_country_code: t.nationality }]
        : undefined;
    return {
      id: p!.id,
      given_name: t.first_name,
      family_name: t.last_name,
      born_on: t.birth_date,
      gender: t.gender === 'male' ? 'm' : 'f',
      title: t.gender === 'male' ? 'mr' : 'ms',
      email: contact.email,
      phone_number: contact.phone_number,
      ...(documents ? { identity_documents: documents } : {}),
    };
  });
}

const sameMoney = (a: Money, b: Money) => a.amount_minor === b.amount_minor && a.currency === b.currency;
const show = (m: Money) => `${formatMinor(m.amount_minor, m.currency)} ${m.currency}`;

/** Orders made under a client reference are found again by their metadata (Duffel's lists do not filter on it). */
const ORDER_SCAN_PAGES = 5;

/**
 * Duffel books seats and bags only with an order paid as it is made (`instant`), never with a
 * held one. A booking with seats or bags is therefore made at Duffel when it is paid: until
 * then its order id names the offer and the booking's client reference, it has no booking
 * reference, and it must be paid before the offer expires.
 */
const UNMADE = 'unmade:';
const unmadeId = (offerId: string, clientReference: string) => `${UNMADE}${offerId}:${clientReference}`;
function unmadeOf(orderId: string): { offerId: string; clientReference: string } | null {
  if (!orderId.startsWith(UNMADE)) return null;
  const rest = orderId.slice(UNMADE.length);
  const at = rest.indexOf(':');
  return at > 0 ? { offerId: rest.slice(0, at), clientReference: rest.slice(at + 1) } : null;
}

/** A seat or bag as Duffel sells it with an offer: bags with the offer, seats on its seat maps. */
interface ForSale {
  type: 'seat' | 'baggage';
  passengerId: string;
  segmentIds: string[];
  maxQuantity: number;
  price: Money;
  designator?: string;
}

/**
 * The flights port on Duffel (API v2, through `@duffel/api`). Offers are Duffel's offers; a
 * hold is an order of type `hold`, issued by a `balance` payment of the amount it was priced
 * at; a cancellation is Duffel's order cancellation, quoted then confirmed. A payment or a
 * cancellation whose answer was lost is looked up on the order before anything is repeated,
 * so a hold is never paid twice and nothing is refunded for a ticket that exists.
 */
export function duffelFlightSupplier(duffel: DuffelCalls, opts: { now?: () => Date } = {}): FlightSupplier & FlightAfterSale {
  const now = opts.now ?? (() => new Date());
  let airports: { at: number; list: Airport[] } | null = null;

  const getOffer = (id: string) => duffel.call('offer', (d) => d.offers.get(id), { safe: true });
  const getOrder = (id: string) => duffel.call('order', (d) => d.orders.get(id), { safe: true });

  async function findOrderByReference(clientReference: string): Promise<DuffelOrder | null> {
    let after: string | undefined;
    for (let page = 0; page < ORDER_SCAN_PAGES; page++) {
      const res = await duffel.page('orders', (d, cursor) => d.orders.list({ limit: 200, ...(cursor ? { after: cursor } : {}) }), after);
      const found = res.items.find((o) => o.metadata?.client_reference === clientReference);
      if (found) return found;
      if (!res.after) return null;
      after = res.after;
    }
    return null;
  }

  async function confirmedCancellation(orderId: string): Promise<OrderCancellation | null> {
    const list = await duffel.call('order cancellations', (d) => d.orderCancellations.list({ order_id: orderId }), { safe: true });
    return list.find((c) => c.confirmed_at) ?? null;
  }

  /** The seats and bags chosen with an offer, priced as Duffel sells them now; one it does not sell (a seat taken meanwhile) is refused. */
  async function chosenServices(offer: DuffelOffer, chosen: ChosenService[]): Promise<BookedService[]> {
    const forSale = new Map<string, ForSale>();
    for (const b of offer.available_services ?? []) {
      if (b.type !== 'baggage') continue;
      forSale.set(b.id, {
        type: 'baggage',
        passengerId: b.passenger_ids[0]!,
        segmentIds: b.segment_ids,
        maxQuantity: b.maximum_quantity,
        price: moneyOf(b.total_amount, b.total_currency),
      });
    }
    if (chosen.some((c) => !forSale.has(c.service_id))) {
      const maps = await duffel.call('seat maps', (d) => d.seatMaps.get({ offer_id: offer.id }), { safe: true });
      for (const m of maps)
        for (const element of m.cabins.flatMap((c) => c.rows.flatMap((r) => r.sections.flatMap((sec) => sec.elements)))) {
          if (element.type !== 'seat' && element.type !== 'restricted_seat_general') continue;
          for (const sv of element.available_services) {
            forSale.set(sv.id, {
              type: 'seat',
              passengerId: sv.passenger_id,
              segmentIds: [m.segment_id],
              maxQuantity: 1,
              price: moneyOf(sv.total_amount, sv.total_currency),
              designator: element.designator,
            });
          }
        }
    }
    return chosen.map((c) => {
      const s = forSale.get(c.service_id);
      if (!s) throw new SupplierRejectedError(`service ${c.service_id} is not for sale with this fare (a seat taken meanwhile, or another fare's)`, 422);
      if (c.quantity > s.maxQuantity) throw new SupplierRejectedError(`at most ${s.maxQuantity} of service ${c.service_id} can be booked`, 422);
      return {
        service_id: c.service_id,
        type: s.type,
        traveler_index: Math.max(
          0,
          offer.passengers.findIndex((p) => p.id === s.passengerId),
        ),
        segments: segmentPairs(s.segmentIds, offer.slices),
        quantity: c.quantity,
        total: { amount_minor: s.price.amount_minor * c.quantity, currency: s.price.currency },
        ...(s.designator ? { designator: s.designator } : {}),
      };
    });
  }

  /** An offer with the bags sold with it. */
  const offerWithServices = (offerId: string) => duffel.call('offer', (d) => d.offers.get(offerId, { return_available_services: true }), { safe: true });

  /** A booking with seats or bags, not made at Duffel until it is paid: the offer, its services and their total, to pay before the offer expires. */
  async function unmadeOrder(offer: DuffelOffer, clientReference: string, chosen: ChosenService[]): Promise<FlightOrder> {
    const services = await chosenServices(offer, chosen);
    const mapped = offerOf(offer);
    const foreign = services.find((s) => s.total.currency !== mapped.total.currency);
    if (foreign)
      throw new SupplierRejectedError(`service ${foreign.service_id} is sold in ${foreign.total.currency}, not the fare's ${mapped.total.currency}`, 422);
    return {
      order_id: unmadeId(offer.id, clientReference),
      booking_reference: null,
      status: Date.parse(offer.expires_at) > now().getTime() ? 'held' : 'expired',
      payment_required_by: offer.expires_at,
      total: { amount_minor: mapped.total.amount_minor + services.reduce((sum, sv) => sum + sv.total.amount_minor, 0), currency: mapped.total.currency },
      fare_family: mapped.fare_family,
      refundable: mapped.refundable,
      refund_penalty: penaltyOf(offer.conditions.refund_before_departure),
      cabin: mapped.cabin,
      legs: mapped.legs,
      tickets: [],
      services,
    };
  }

  /** Makes an order under the booking's client reference; one whose answer was lost has used the offer up, and is found by that reference. */
  async function createOrder(what: string, clientReference: string, order: Omit<CreateOrder, 'metadata'>): Promise<FlightOrder> {
    try {
      return orderOf(await duffel.call(what, (d) => d.orders.create({ ...order, metadata: { client_reference: clientReference } })), now());
    } catch (err) {
      if (err instanceof SupplierUnavailableError || (err instanceof SupplierRejectedError && err.status === 409)) {
        const made = await findOrderByReference(clientReference);
        if (made) return orderOf(made, now());
      }
      throw err;
    }
  }

  /** The order made for an unmade booking when it was paid, if it was (an answer lost). */
  async function madeFor(unmade: { clientReference: string }): Promise<FlightOrder | null> {
    const made = await findOrderByReference(unmade.clientReference);
    return made ? orderOf(made, now()) : null;
  }

  /** Makes and pays an unmade booking's order at once, with its seats and bags, at the amount it was sold at. */
  async function makeAndPay(
    unmade: { offerId: string; clientReference: string },
    req: { amount: Money; booking?: { travelers: Traveler[]; contact: { phone_number: string; email: string }; services: ChosenService[] } },
  ): Promise<FlightOrder> {
    const found = await madeFor(unmade);
    if (found) return found;
    if (!req.booking) throw new SupplierRejectedError(`booking ${unmade.clientReference} is made at Duffel when paid, and its travellers were not given`, 422);
    const offer = await offerWithServices(unmade.offerId);
    const due = await unmadeOrder(offer, unmade.clientReference, req.booking.services);
    if (!sameMoney(due.total, req.amount)) {
      throw new SupplierRejectedError(`the airline's price is now ${show(due.total)}, not the ${show(req.amount)} it was sold at; nothing was booked`, 409);
    }
    return createOrder('instant order', unmade.clientReference, {
      type: 'instant' as const,
      selected_offers: [offer.id],
      passengers: passengersFor(offer, req.booking.travelers, req.booking.contact),
      services: req.booking.services.map((sv) => ({ id: sv.service_id, quantity: sv.quantity })),
      payments: [{ type: 'balance' as const, amount: formatMinor(req.amount.amount_minor, req.amount.currency), currency: req.amount.currency }],
    });
  }

  const cancelled = (c: OrderCancellation, currency: string) => ({
    order_id: c.order_id,
    refund: moneyOf(c.refund_amount ?? '0', c.refund_currency ?? currency),
    confirmed_at: c.confirmed_at ?? now().toISOString(),
  });

  return {
    ...duffelAfterSale(duffel, { now }),
    name: 'duffel',

    airports: async () => {
      if (airports && Date.now() - airports.at < 3_600_000) return airports.list;
      const list: Airport[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await duffel.page('airports', (d, cursor) => d.airports.list({ limit: 200, ...(cursor ? { after: cursor } : {}) }), after);
        for (const a of page.items as DuffelAirport[]) {
          if (!a.iata_code) continue;
          list.push({ code: a.iata_code, name: a.name, city: a.city_name, country: a.iata_country_code, city_code: a.iata_city_code ?? a.iata_code });
        }
        if (!page.after) break;
        after = page.after;
      }
      airports = { at: Date.now(), list };
      return list;
    },

    search: async (req) => {
      const slices = [{ origin: req.origin, destination: req.destination, departure_date: req.departure_date }];
      if (req.return_date) slices.push({ origin: req.destination, destination: req.origin, departure_date: req.return_date });
      const passengers = [
        ...Array.from({ length: req.adults }, () => ({ type: 'adult' as const })),
        ...Array.from({ length: req.children }, () => ({ age: SEARCH_AGES.child })),
        ...Array.from({ length: req.infants }, () => ({ age: SEARCH_AGES.infant })),
      ];
      const found = await duffel.call(
        'offer request',
        (d) =>
          d.offerRequests.create({
            slices: slices.map((s) => ({ ...s, arrival_time: null, departure_time: null })),
            passengers,
            cabin_class: req.cabin,
            return_offers: true,
          }),
        { safe: true },
      );
      return { search_id: found.id, offers: (found.offers ?? []).map(offerOf) };
    },

    // An offer Duffel no longer holds is its refusal (409): the partner's "no longer available".
    price: async (offerId): Promise<PricedOffer> => {
      const offer = await getOffer(offerId);
      const mapped = offerOf(offer);
      const count = (t: PassengerType) => offer.passengers.filter((p) => typeOfPassenger(p) === t).length;
      return {
        available: Date.parse(offer.expires_at) > now().getTime(),
        offer_id: offer.id,
        total: mapped.total,
        searched_total: null,
        expires_at: offer.expires_at,
        seats_left: null,
        legs: mapped.legs,
        passengers: { adults: count('ADT'), children: count('CHD'), infants: count('INF') },
        identity_documents_required: offer.passenger_identity_documents_required,
      };
    },

    conditions: async (offerId): Promise<FareConditions> => {
      const offer = await getOffer(offerId);
      const refund = offer.conditions.refund_before_departure;
      const change = offer.conditions.change_before_departure;
      const rule = (category: string, c: typeof refund, text: string) => ({ category, allowed: c?.allowed ?? false, penalty: penaltyOf(c), text });
      return {
        fare_family: fareFamilyOf(offer),
        refund_before_departure: { allowed: refund?.allowed ?? false, penalty: penaltyOf(refund) },
        change_before_departure: { allowed: change?.allowed ?? false, penalty: penaltyOf(change) },
        rules: [rule('refund', refund, 'Refund before departure'), rule('change', change, 'Change before departure')],
      };
    },

    baggage: async (offerId): Promise<Baggage> => {
      const offer = await getOffer(offerId);
      const segment = offer.slices[0]?.segments[0];
      const seen = new Set<PassengerType>();
      const baggage: Baggage['baggage'] = [];
      for (const p of offer.passengers) {
        const type = typeOfPassenger(p);
        if (seen.has(type)) continue;
        seen.add(type);
        const bags = segment?.passengers.find((sp) => sp.passenger_id === p.id)?.baggages ?? [];
        const pieces = (kind: string) => bags.filter((b) => b.type === kind).reduce((s, b) => s + b.quantity, 0);
        baggage.push({ passenger_type: type, checked: { pieces: pieces('checked'), weight_kg: null }, cabin: { pieces: pieces('carry_on'), weight_kg: null } });
      }
      return { baggage };
    },

    hold: async (req) => {
      if (req.services?.length) return unmadeOrder(await offerWithServices(req.offerId), req.clientReference, req.services);
      const offer = await getOffer(req.offerId);
      if (offer.payment_requirements.requires_instant_payment) {
        throw new SupplierRejectedError('the airline sells this fare for immediate payment only; it cannot be held', 422);
      }
      return createOrder('hold order', req.clientReference, {
        // Duffel's API reference names a pay-later order `hold`; the SDK's type says otherwise.
        type: 'hold' as unknown as CreateOrder['type'],
        selected_offers: [offer.id],
        passengers: passengersFor(offer, req.travelers, req.contact),
      });
    },

    issue: async (orderId, req) => {
      const unmade = unmadeOf(orderId);
      if (unmade) {
        const made = await makeAndPay(unmade, req);
        if (made.status === 'issued') return made;
        throw new SupplierUnavailableError(`order ${made.order_id} is ${made.status} after its payment; its tickets are not issued yet`);
      }
      const order = await getOrder(orderId);
      const current = orderOf(order, now());
      if (current.status === 'issued') return current;
      if (current.status === 'paid') throw new SupplierUnavailableError(`order ${orderId} is paid and its tickets are not issued yet`);
      if (current.status !== 'held') throw new SupplierRejectedError(`order ${orderId} is ${current.status} at the airline`, 410);
      if (!sameMoney(current.total, req.amount)) {
        throw new SupplierRejectedError(
          `the airline's price for order ${orderId} is ${show(current.total)}, not the ${show(req.amount)} it was sold at; it was not paid`,
          409,
        );
      }
      try {
        await duffel.call('payment', (d) =>
          d.payments.create({
            order_id: orderId,
            payment: { type: 'balance', amount: formatMinor(req.amount.amount_minor, req.amount.currency), currency: req.amount.currency },
          }),
        );
      } catch (err) {
        // Paid meanwhile (a payment whose answer was lost): the order tells.
        if (!(err instanceof SupplierRejectedError && err.code === 'already_paid')) throw err;
      }
      const after = orderOf(await getOrder(orderId), now());
      if (after.status === 'issued') return after;
      throw new SupplierUnavailableError(`order ${orderId} is ${after.status} after its payment; its tickets are not issued yet`);
    },

    order: async (orderId) => {
      const unmade = unmadeOf(orderId);
      if (!unmade) return orderOf(await getOrder(orderId), now());
      // Unmade: what there is is the offer (without the seats and bags, which only the booking records).
      return (await madeFor(unmade)) ?? unmadeOrder(await offerWithServices(unmade.offerId), unmade.clientReference, []);
    },

    release: async (orderId) => {
      const unmade = unmadeOf(orderId);
      if (unmade) {
        // Nothing is held at Duffel for an unmade booking (its offer simply expires); one made is paid already.
        const made = await madeFor(unmade);
        if (!made) throw new SupplierRejectedError(`nothing was made at Duffel for booking ${unmade.clientReference}`, 410);
        return made;
      }
      const current = orderOf(await getOrder(orderId), now());
      if (current.status !== 'held') return current;
      try {
        const quote = await duffel.call('order cancellation', (d) => d.orderCancellations.create({ order_id: orderId }));
        await duffel.call('order cancellation confirmation', (d) => d.orderCancellations.confirm(quote.id));
      } catch (err) {
        if (!(err instanceof SupplierRejectedError && (err.status === 409 || err.status === 410))) throw err;
      }
      return orderOf(await getOrder(orderId), now());
    },

    quoteCancellation: async (orderId): Promise<CancellationQuote> => {
      const q = await duffel.call('order cancellation', (d) => d.orderCancellations.create({ order_id: orderId }));
      if (q.refund_to !== 'balance' && q.refund_to !== 'arc_bsp_cash') {
        throw new SupplierRejectedError(
          `the airline refunds order ${orderId} only as ${q.refund_to.replace(/_/g, ' ')}, not in money; ask for an offline refund`,
          422,
        );
      }
      return { quote_id: q.id, order_id: q.order_id, refund: moneyOf(q.refund_amount ?? '0', q.refund_currency ?? 'XXX'), expires_at: q.expires_at };
    },

    confirmCancellation: async (quote) => {
      const order = await getOrder(quote.order_id);
      // Confirmed already (a confirmation whose answer was lost): the order tells, and its cancellation says the refund.
      if (order.cancelled_at) {
        const done = await confirmedCancellation(quote.order_id);
        if (done) return cancelled(done, order.total_currency);
      }
      try {
        return cancelled(await duffel.call('order cancellation confirmation', (d) => d.orderCancellations.confirm(quote.quote_id)), order.total_currency);
      } catch (err) {
        if (!(err instanceof SupplierRejectedError && err.status === 409)) throw err;
        // The quote expired: a new one is confirmed only if it refunds no less.
        const again = await duffel.call('order cancellation', (d) => d.orderCancellations.create({ order_id: quote.order_id }));
        const refund = moneyOf(again.refund_amount ?? '0', again.refund_currency ?? quote.refund.currency);
        if (refund.currency !== quote.refund.currency || refund.amount_minor < quote.refund.amount_minor) {
          throw new SupplierRejectedError(
            `the airline now refunds ${show(refund)} for order ${quote.order_id}, less than the ${show(quote.refund)} quoted; nothing was cancelled`,
            409,
          );
        }
        return cancelled(await duffel.call('order cancellation confirmation', (d) => d.orderCancellations.confirm(again.id)), order.total_currency);
      }
    },
  };
}
