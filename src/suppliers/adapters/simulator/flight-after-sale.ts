import { callSupplier as callWithin } from '../../http';
import { SupplierRejectedError } from '../../errors';
import {
  mapSeatPrices,
  type ChangeOffer,
  type FlightAfterSale,
  type OrderChange,
  type ScheduleChange,
  type ScheduleChangeAction,
  type SeatMap,
  type SeatMapOf,
  type SeatPrice,
  type ServiceForSale,
} from '../../flight-after-sale';
import type { Leg } from '../../flights';
import { money, orderOf, type SimBooking } from './flights';

/** The simulator's shapes: amounts in minor units of one `currency` per answer; a change's total is signed (negative: a refund). */
interface SimChangeOffer {
  change_offer_id: string;
  pnr: string;
  remove: number[];
  add: Leg[];
  change_total_minor: number;
  penalty_minor: number;
  new_total_minor: number;
  currency: string;
  expires_at: string;
  change_id: string | null;
}

interface SimOrderChange {
  change_id: string;
  change_offer_id: string;
  pnr: string;
  change_total_minor: number;
  penalty_minor: number;
  new_total_minor: number;
  currency: string;
  expires_at: string;
  confirmed_at: string | null;
}

interface SimAirlineChange {
  id: string;
  pnr: string;
  removed: Leg[];
  added: Leg[];
  available_actions: ScheduleChangeAction[];
  action_taken: ScheduleChange['action_taken'];
  action_taken_at: string | null;
  created_at: string;
}

/** The simulator prices a seat in minor units of the answer's `currency`. */
type SimSeatMap = SeatMapOf<Omit<SeatPrice, 'price'> & { price_minor: number }>;

type SimService = Omit<ServiceForSale, 'price'> & { price_minor: number };

const seatMapOf = (m: SimSeatMap, currency: string): SeatMap => mapSeatPrices(m, ({ price_minor, ...p }) => ({ ...p, price: money(price_minor, currency) }));

const servicesOf = (answer: { services: SimService[]; currency: string }): ServiceForSale[] =>
  answer.services.map(({ price_minor, ...s }) => ({ ...s, price: money(price_minor, answer.currency) }));

const changeOfferOf = (o: SimChangeOffer): ChangeOffer => ({
  change_offer_id: o.change_offer_id,
  order_id: o.pnr,
  change_total: money(o.change_total_minor, o.currency),
  penalty: money(o.penalty_minor, o.currency),
  new_total: money(o.new_total_minor, o.currency),
  expires_at: o.expires_at,
  remove: o.remove,
  add: o.add,
  change_id: o.change_id,
});

const orderChangeOf = (c: SimOrderChange): OrderChange => ({
  change_id: c.change_id,
  change_offer_id: c.change_offer_id,
  order_id: c.pnr,
  change_total: money(c.change_total_minor, c.currency),
  penalty: money(c.penalty_minor, c.currency),
  new_total: money(c.new_total_minor, c.currency),
  expires_at: c.expires_at,
  confirmed_at: c.confirmed_at,
});

const scheduleChangeOf = (a: SimAirlineChange): ScheduleChange => ({
  change_id: a.id,
  order_id: a.pnr,
  removed: a.removed,
  added: a.added,
  available_actions: a.available_actions,
  action_taken: a.action_taken,
  action_taken_at: a.action_taken_at,
  created_at: a.created_at,
});

/**
 * What can happen to a simulator flight order after the sale (src/suppliers/simulator/air/change-routes.ts):
 * a change is asked for on the booking (its PNR is the order id), made from one of the offers
 * and confirmed, paying its total when positive; the airline's own changes are listed on the
 * booking and accepted by their id; seats and bags of an offer are read by its fare code, and
 * bags added to the booking (src/suppliers/simulator/air/service-routes.ts). The sandbox scenario of the call goes with it as the
 * simulator's header (src/suppliers/http.ts).
 */
export function simulatorFlightAfterSale(baseUrl: string, timeoutMs?: number): FlightAfterSale {
  const callSupplier = <T>(url: string, init: Parameters<typeof callWithin>[1]) => callWithin<T>(url, { timeoutMs, ...init });
  const url = (path: string) => `${baseUrl}/air${path}`;
  const id = encodeURIComponent;

  return {
    requestChange: async (orderId, req) => {
      const answer = await callSupplier<{ request_id: string; pnr: string; offers: SimChangeOffer[] }>(url(`/bookings/${id(orderId)}/change_requests`), {
        method: 'POST',
        body: {
          remove: req.remove,
          add: req.add.map((l) => ({ origin: l.origin, destination: l.destination, departure_date: l.departure_date, cabin: l.cabin })),
        },
      });
      return { request_id: answer.request_id, order_id: answer.pnr, offers: answer.offers.map(changeOfferOf) };
    },

    changeOffer: async (changeOfferId) => changeOfferOf(await callSupplier<SimChangeOffer>(url(`/change_offers/${id(changeOfferId)}`), { method: 'GET' })),

    createChange: async (changeOfferId) =>
      orderChangeOf(await callSupplier<SimOrderChange>(url('/order_changes'), { method: 'POST', body: { change_offer_id: changeOfferId } })),

    findChange: async (changeOfferId) => {
      try {
        return orderChangeOf(await callSupplier<SimOrderChange>(url(`/order_changes?change_offer_id=${id(changeOfferId)}`), { method: 'GET' }));
      } catch (err) {
        if (err instanceof SupplierRejectedError && err.status === 404) return null;
        throw err;
      }
    },

    confirmChange: async (changeId, req) =>
      orderChangeOf(
        await callSupplier<SimOrderChange>(url(`/order_changes/${id(changeId)}/confirm`), {
          method: 'POST',
          // Only a positive total is paid; a change that refunds, or costs nothing, is confirmed without a payment.
          body: req.amount.amount_minor > 0 ? { payment: { amount_minor: req.amount.amount_minor, currency: req.amount.currency } } : {},
        }),
      ),

    change: async (changeId) => orderChangeOf(await callSupplier<SimOrderChange>(url(`/order_changes/${id(changeId)}`), { method: 'GET' })),

    scheduleChanges: async (orderId) =>
      (await callSupplier<{ airline_changes: SimAirlineChange[] }>(url(`/bookings/${id(orderId)}/airline_changes`), { method: 'GET' })).airline_changes.map(
        scheduleChangeOf,
      ),

    acceptScheduleChange: async (changeId) =>
      scheduleChangeOf(await callSupplier<SimAirlineChange>(url(`/airline_changes/${id(changeId)}/accept`), { method: 'POST', body: {} })),

    seatMaps: async (offerId) => {
      const answer = await callSupplier<{ seat_maps: SimSeatMap[]; currency: string }>(url('/seat_maps'), {
        method: 'POST',
        body: { fare_source_code: offerId },
      });
      return answer.seat_maps.map((m) => seatMapOf(m, answer.currency));
    },

    offerServices: async (offerId) =>
      servicesOf(await callSupplier<{ services: SimService[]; currency: string }>(url('/services'), { method: 'POST', body: { fare_source_code: offerId } })),

    orderServices: async (orderId) =>
      servicesOf(await callSupplier<{ services: SimService[]; currency: string }>(url(`/bookings/${id(orderId)}/services`), { method: 'GET' })),

    addServices: async (orderId, req) =>
      orderOf(
        await callSupplier<SimBooking>(url(`/bookings/${id(orderId)}/services`), {
          method: 'POST',
          body: { services: req.services, payment: { amount_minor: req.amount.amount_minor, currency: req.amount.currency } },
        }),
      ),
  };
}
