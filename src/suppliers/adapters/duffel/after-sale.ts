import type {
  AirlineInitiatedChange,
  Offer as DuffelOffer,
  OfferAvailableServiceBaggage,
  Order as DuffelOrder,
  OrderChange as DuffelOrderChange,
  OrderChangeOffer as DuffelChangeOffer,
  SeatMap as DuffelSeatMap,
} from '@duffel/api/types';
import { formatMinor } from '../../../platform/currency';
import { SupplierRejectedError, SupplierUnavailableError } from '../../errors';
import type { ChangeOffer, ChangeRequest, FlightAfterSale, OrderChange, ScheduleChange, SeatMap, ServiceForSale } from '../../flight-after-sale';
import type { Cabin, Leg, Money } from '../../flights';
import type { DuffelCalls } from './client';
import { cabinOf, legsOf, moneyOf, orderOf, segmentPairs } from './mapping';

/**
 * Duffel's answers name less than the port asks for: a change offer does not name its order,
 * an order change does not name the offer it was made from, and an airline-initiated change
 * is not read by its id. So the ids this adapter gives out carry what the lookups need, as
 * `<Duffel's id>.<the id it belongs with>`: a change offer `oco_….ord_…`, a change
 * `oce_….oco_…`, a schedule change `aic_….ord_…`.
 */
const joinRef = (id: string, context: string) => `${id}.${context}`;

function splitRef(ref: string, what: string): [string, string] {
  const [id, context, ...more] = ref.split('.');
  if (!id || !context || more.length > 0) throw new SupplierRejectedError(`${ref} is not a ${what} this supplier answered`, 404);
  return [id, context];
}

/** The scheduled-change id the adapter answers for Duffel's airline-initiated change `aicId` on order `orderId`. */
export const duffelScheduleChangeId = (orderId: string, aicId: string) => joinRef(aicId, orderId);

/** A change offer as Duffel's reference gives it: the penalty as `penalty_total_amount`, `order_change_id` null until a change is made. */
type ChangeOfferAnswer = Omit<DuffelChangeOffer, 'order_change_id' | 'penalty_amount' | 'penalty_currency'> & {
  order_change_id: string | null;
  penalty_total_amount?: string | null;
  penalty_total_currency?: string | null;
  penalty_amount?: string | null;
  penalty_currency?: string | null;
};
type ChangeSlice = { segments: Array<{ id: string; passengers: Array<{ cabin_class: string | null }> }> };

const noMoney = (currency: string): Money => ({ amount_minor: 0, currency });
const sameMoney = (a: Money, b: Money) => a.amount_minor === b.amount_minor && a.currency === b.currency;
const show = (m: Money) => `${formatMinor(m.amount_minor, m.currency)} ${m.currency}`;

/** Legs of slices in any of Duffel's slice shapes (offer, order, change): the fields read are common to all. */
const legsOfSlices = (slices: ChangeSlice[], cabin: Cabin): Leg[] => legsOf(slices as unknown as Parameters<typeof legsOf>[0], cabin);
const cabinOfSlices = (slices: ChangeSlice[], fallback: Cabin): Cabin => (slices[0]?.segments[0]?.passengers[0]?.cabin_class as Cabin | undefined) ?? fallback;

function changeOfferOf(o: ChangeOfferAnswer, order: DuffelOrder): ChangeOffer {
  const currency = o.change_total_currency ?? order.total_currency;
  const penaltyAmount = o.penalty_total_amount ?? o.penalty_amount ?? null;
  const penaltyCurrency = o.penalty_total_currency ?? o.penalty_currency ?? currency;
  const slices = o.slices as unknown as { add: ChangeSlice[]; remove: Array<{ id: string }> };
  return {
    change_offer_id: joinRef(o.id, order.id),
    order_id: order.id,
    change_total: o.change_total_amount === null ? noMoney(currency) : moneyOf(o.change_total_amount, currency),
    penalty: penaltyAmount === null ? noMoney(penaltyCurrency) : moneyOf(penaltyAmount, penaltyCurrency),
    new_total: o.new_total_amount === null ? noMoney(o.new_total_currency) : moneyOf(o.new_total_amount, o.new_total_currency),
    expires_at: o.expires_at,
    // A slice removed by a change already confirmed is no longer on the order: it has no index there.
    remove: slices.remove.map((r) => order.slices.findIndex((s) => s.id === r.id)).filter((i) => i >= 0),
    add: legsOfSlices(slices.add, cabinOfSlices(slices.add, cabinOf(order))),
    change_id: o.order_change_id ? joinRef(o.order_change_id, o.id) : null,
  };
}

/** Duffel's order change, with the penalty under the reference's name (the SDK's type agrees here). */
function orderChangeOf(c: DuffelOrderChange, offerId: string): OrderChange {
  const currency = c.change_total_currency;
  return {
    change_id: joinRef(c.id, offerId),
    change_offer_id: joinRef(offerId, c.order_id),
    order_id: c.order_id,
    change_total: moneyOf(c.change_total_amount, currency),
    penalty:
      c.penalty_total_amount === null ? noMoney(c.penalty_total_currency ?? currency) : moneyOf(c.penalty_total_amount, c.penalty_total_currency ?? currency),
    new_total: moneyOf(c.new_total_amount, c.new_total_currency),
    expires_at: c.expires_at,
    confirmed_at: c.confirmed_at,
  };
}

function scheduleChangeOf(c: AirlineInitiatedChange, cabin: Cabin): ScheduleChange {
  return {
    change_id: joinRef(c.id, c.order_id),
    order_id: c.order_id,
    removed: legsOfSlices(c.removed as unknown as ChangeSlice[], cabin),
    added: legsOfSlices(c.added as unknown as ChangeSlice[], cabin),
    available_actions: c.available_actions,
    action_taken: c.action_taken,
    action_taken_at: c.action_taken_at,
    created_at: c.created_at,
  };
}

function bagOf(
  s: OfferAvailableServiceBaggage,
  owner: { passengers: Array<{ id: string }>; slices: Array<{ segments: Array<{ id: string }> }> },
): ServiceForSale {
  return {
    service_id: s.id,
    type: 'baggage',
    price: moneyOf(s.total_amount, s.total_currency),
    max_quantity: s.maximum_quantity,
    traveler_indexes: s.passenger_ids.map((id) => owner.passengers.findIndex((p) => p.id === id)).filter((i) => i >= 0),
    segments: segmentPairs(s.segment_ids, owner.slices),
    bag: { kind: s.metadata.type === 'carry_on' ? 'carry_on' : 'checked', max_weight_kg: s.metadata.maximum_weight_kg ?? null },
  };
}

function seatMapOf(m: DuffelSeatMap, offer: DuffelOffer): SeatMap {
  const leg = offer.slices.findIndex((s) => s.id === m.slice_id);
  const segment = offer.slices[leg]?.segments.findIndex((s) => s.id === m.segment_id) ?? -1;
  const traveler = (id: string) => offer.passengers.findIndex((p) => p.id === id);
  return {
    leg_index: leg,
    segment_index: segment,
    cabins: m.cabins.map((c) => ({
      cabin: c.cabin_class as Cabin,
      rows: c.rows
        .map((r) => ({
          seats: r.sections
            .flatMap((s) => s.elements)
            .flatMap((e) =>
              e.type === 'seat' || e.type === 'restricted_seat_general'
                ? [
                    {
                      designator: e.designator,
                      disclosures: e.disclosures,
                      prices: e.available_services.map((sv) => ({
                        service_id: sv.id,
                        traveler_index: traveler(sv.passenger_id),
                        price: moneyOf(sv.total_amount, sv.total_currency),
                      })),
                    },
                  ]
                : [],
            ),
        }))
        .filter((r) => r.seats.length > 0),
    })),
  };
}

const isLost = (err: unknown) => err instanceof SupplierUnavailableError;

/**
 * What happens to a Duffel order after the sale: order changes (request, change, confirm),
 * airline-initiated changes (list, accept), seat maps, and bags with an offer or after
 * booking. A change, a confirmation, an acceptance or an addition whose answer is lost is
 * looked up on Duffel before the caller hears of it.
 */
export function duffelAfterSale(duffel: DuffelCalls, opts: { now?: () => Date } = {}): FlightAfterSale {
  const now = opts.now ?? (() => new Date());
  const getOrder = (id: string) => duffel.call('order', (d) => d.orders.get(id), { safe: true });
  const getChangeOffer = (id: string) =>
    duffel.call('order change offer', async (d) => (await d.orderChangeOffers.get(id)) as unknown as { data: ChangeOfferAnswer }, { safe: true });
  const getChange = (id: string) =>
    duffel.call('order change', async (d) => (await d.orderChanges.get(id)) as unknown as { data: DuffelOrderChange }, { safe: true });
  const listScheduleChanges = (orderId: string) =>
    duffel.call('airline-initiated changes', async (d) => ({ data: (await d.airlineInitiatedChanges.list(orderId)).data ?? [] }), { safe: true });

  async function findChange(changeOfferId: string): Promise<OrderChange | null> {
    const [offerId] = splitRef(changeOfferId, 'change offer');
    const offer = await getChangeOffer(offerId);
    if (!offer.order_change_id) return null;
    return orderChangeOf(await getChange(offer.order_change_id), offerId);
  }

  async function scheduleChanges(orderId: string): Promise<ScheduleChange[]> {
    const [order, changes] = await Promise.all([getOrder(orderId), listScheduleChanges(orderId)]);
    return changes.map((c) => scheduleChangeOf(c, cabinOf(order))).sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
  }

  return {
    requestChange: async (orderId, req): Promise<ChangeRequest> => {
      const order = await getOrder(orderId);
      const remove = req.remove.map((i) => {
        const slice = order.slices[i];
        if (!slice) throw new SupplierRejectedError(`order ${orderId} has no leg ${i}`, 422);
        return { slice_id: slice.id };
      });
      // A change request is a search: asking again after a lost answer changes nothing.
      const found = await duffel.call(
        'order change request',
        (d) =>
          d.orderChangeRequests.create({
            order_id: orderId,
            slices: {
              remove,
              add: req.add.map((a) => ({ origin: a.origin, destination: a.destination, departure_date: a.departure_date, cabin_class: a.cabin })),
            },
          }),
        { safe: true },
      );
      return {
        request_id: found.id,
        order_id: orderId,
        offers: (found.order_change_offers as unknown as ChangeOfferAnswer[]).map((o) => changeOfferOf(o, order)),
      };
    },

    changeOffer: async (changeOfferId) => {
      const [offerId, orderId] = splitRef(changeOfferId, 'change offer');
      const [offer, order] = await Promise.all([getChangeOffer(offerId), getOrder(orderId)]);
      return changeOfferOf(offer, order);
    },

    createChange: async (changeOfferId) => {
      const [offerId] = splitRef(changeOfferId, 'change offer');
      try {
        const made = await duffel.call(
          'order change',
          async (d) => (await d.orderChanges.create({ selected_order_change_offer: offerId })) as unknown as { data: DuffelOrderChange },
        );
        return orderChangeOf(made, offerId);
      } catch (err) {
        // Made already (an answer lost, here or in an earlier attempt): the offer names its change.
        if (isLost(err) || (err instanceof SupplierRejectedError && err.status === 409)) {
          const made = await findChange(changeOfferId);
          if (made) return made;
        }
        throw err;
      }
    },

    findChange,

    confirmChange: async (changeId, req) => {
      const [id, offerId] = splitRef(changeId, 'change');
      const current = await getChange(id);
      if (current.confirmed_at) return orderChangeOf(current, offerId);
      const total = moneyOf(current.change_total_amount, current.change_total_currency);
      if (!sameMoney(total, req.amount)) {
        throw new SupplierRejectedError(
          `the airline's change ${id} now costs ${show(total)}, not the ${show(req.amount)} it was sold at; it was not confirmed`,
          409,
        );
      }
      const payment =
        total.amount_minor > 0
          ? { payment: { type: 'balance' as const, amount: formatMinor(total.amount_minor, total.currency), currency: total.currency } }
          : {};
      try {
        const confirmed = await duffel.call(
          'order change confirmation',
          async (d) => (await d.orderChanges.confirm(id, payment)) as unknown as { data: DuffelOrderChange },
        );
        return orderChangeOf(confirmed, offerId);
      } catch (err) {
        // Confirmed already (an answer lost): the change tells.
        if (isLost(err) || err instanceof SupplierRejectedError) {
          const after = await getChange(id);
          if (after.confirmed_at) return orderChangeOf(after, offerId);
        }
        throw err;
      }
    },

    change: async (changeId) => {
      const [id, offerId] = splitRef(changeId, 'change');
      return orderChangeOf(await getChange(id), offerId);
    },

    scheduleChanges,

    acceptScheduleChange: async (changeId) => {
      const [id, orderId] = splitRef(changeId, 'schedule change');
      const order = await getOrder(orderId);
      try {
        const accepted = await duffel.call('airline-initiated change acceptance', (d) => d.airlineInitiatedChanges.accept(id));
        return scheduleChangeOf(accepted, cabinOf(order));
      } catch (err) {
        // Accepted already (an answer lost): the order's changes tell.
        if (isLost(err) || err instanceof SupplierRejectedError) {
          const found = (await scheduleChanges(orderId)).find((c) => c.change_id === changeId);
          if (found?.action_taken === 'accepted') return found;
        }
        throw err;
      }
    },

    seatMaps: async (offerId) => {
      const [maps, offer] = await Promise.all([
        duffel.call('seat maps', (d) => d.seatMaps.get({ offer_id: offerId }), { safe: true }),
        duffel.call('offer', (d) => d.offers.get(offerId), { safe: true }),
      ]);
      return maps.map((m) => seatMapOf(m, offer));
    },

    offerServices: async (offerId) => {
      const offer = await duffel.call('offer', (d) => d.offers.get(offerId, { return_available_services: true }), { safe: true });
      return (offer.available_services ?? []).filter((s): s is OfferAvailableServiceBaggage => s.type === 'baggage').map((s) => bagOf(s, offer));
    },

    orderServices: async (orderId) => {
      const [order, services] = await Promise.all([
        getOrder(orderId),
        duffel.call('order services', (d) => d.orders.getAvailableServices(orderId), { safe: true }),
      ]);
      return services.filter((s) => s.type === 'baggage').map((s) => bagOf(s, order));
    },

    addServices: async (orderId, req) => {
      const before = await getOrder(orderId);
      const booked = (o: DuffelOrder, id: string) => o.services.filter((s) => s.id === id).reduce((sum, s) => sum + s.quantity, 0);
      const payment = { type: 'balance' as const, amount: formatMinor(req.amount.amount_minor, req.amount.currency), currency: req.amount.currency };
      try {
        const order = await duffel.call('order services addition', (d) =>
          d.orders.addServices(orderId, { add_services: req.services.map((s) => ({ id: s.service_id, quantity: s.quantity })), payment }),
        );
        return orderOf(order, now());
      } catch (err) {
        // Added already (an answer lost): the order has the services it did not have before.
        if (isLost(err)) {
          const after = await getOrder(orderId);
          if (req.services.every((s) => booked(after, s.service_id) >= booked(before, s.service_id) + s.quantity)) return orderOf(after, now());
        }
        throw err;
      }
    },
  };
}
