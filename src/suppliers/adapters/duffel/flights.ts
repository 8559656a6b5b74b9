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
import type { Airport, Baggage, CancellationQuote, FareConditions, FlightSupplier, Money, PassengerType, PricedOffer, Traveler } from '../../flights';
import { duffelAfterSale } from './after-sale';
import type { DuffelCalls } from './client';
import { fareFamilyOf, moneyOf, offerOf, orderOf, penaltyOf, SEARCH_AGES, typeOfPassenger } from './mapping';

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
      // Duffel books services with instant orders only; a hold adds bags once it is issued.
      if (req.services?.length) {
        throw new SupplierRejectedError('Duffel books seats and bags with an order paid at once, not with a held one; add bags once it is issued', 422);
      }
      const offer = await getOffer(req.offerId);
      if (offer.payment_requirements.requires_instant_payment) {
        throw new SupplierRejectedError('the airline sells this fare for immediate payment only; it cannot be held', 422);
      }
      const order = {
        // Duffel's API reference names a pay-later order `hold`; the SDK's type says otherwise.
        type: 'hold' as unknown as CreateOrder['type'],
        selected_offers: [offer.id],
        passengers: passengersFor(offer, req.travelers, req.contact),
        metadata: { client_reference: req.clientReference },
      } satisfies CreateOrder;
      try {
        return orderOf(await duffel.call('hold order', (d) => d.orders.create(order)), now());
      } catch (err) {
        // An order made under this reference whose answer was lost has used the offer up: find it.
        if (err instanceof SupplierUnavailableError || (err instanceof SupplierRejectedError && err.status === 409)) {
          const made = await findOrderByReference(req.clientReference);
          if (made) return orderOf(made, now());
        }
        throw err;
      }
    },

    issue: async (orderId, req) => {
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

    order: async (orderId) => orderOf(await getOrder(orderId), now()),

    release: async (orderId) => {
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
