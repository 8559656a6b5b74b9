import { callSupplier as callWithin } from '../../http';
import type {
  Airport,
  BookedService,
  Baggage,
  Cabin,
  FareConditions,
  FlightOrder,
  FlightOrderStatus,
  FlightSupplier,
  Leg,
  Money,
  Offer,
  Passengers,
  PricedOffer,
  Traveler,
} from '../../flights';

/** The simulator's own shapes: amounts in minor units of one `currency` per answer. */
interface SimOffer extends Omit<Offer, 'offer_id' | 'total' | 'expires_at'> {
  fare_source_code: string;
  total_price_minor: number;
  currency: string;
}

interface SimRevalidation {
  is_valid: boolean;
  fare_source_code: string;
  total_price_minor: number;
  original_price_minor: number;
  currency: string;
  seats_left: number;
  legs: Leg[];
  passengers: Passengers;
}

interface SimRules {
  fare_family: string;
  currency: string;
  refundable: boolean;
  refund_penalty_minor: number;
  change_penalty_minor: number;
  rules: Array<{ category: string; allowed: boolean; penalty_minor: number; text: string }>;
}

export interface SimBooking {
  booking_ref: string;
  pnr: string;
  status: 'booked' | 'ticketed' | 'cancelled' | 'expired' | 'refunded';
  ticket_time_limit: string;
  total_price_minor: number;
  currency: string;
  fare_family: string;
  refundable: boolean;
  refund_penalty_minor: number;
  /** What a refund now gives back. */
  refund_now_minor: number;
  cabin: Cabin;
  legs: Leg[];
  tickets: Array<{ traveler_index: number; ticket_number: string }>;
  services: Array<Omit<BookedService, 'total'> & { total_minor: number }>;
  refunded_minor?: number;
}

const STATUS: Record<SimBooking['status'], FlightOrderStatus> = {
  booked: 'held',
  ticketed: 'issued',
  cancelled: 'cancelled',
  expired: 'expired',
  refunded: 'refunded',
};

export const money = (amount_minor: number, currency: string): Money => ({ amount_minor, currency });

/** The simulator's booking as an order: the PNR is both its id and its booking reference. */
export function orderOf(b: SimBooking): FlightOrder {
  return {
    order_id: b.pnr,
    booking_reference: b.pnr,
    status: STATUS[b.status],
    payment_required_by: b.ticket_time_limit,
    total: money(b.total_price_minor, b.currency),
    fare_family: b.fare_family,
    refundable: b.refundable,
    refund_penalty: money(b.refund_penalty_minor, b.currency),
    cabin: b.cabin,
    legs: b.legs,
    tickets: b.tickets.map((t) => ({ traveler_index: t.traveler_index, ticket_number: t.ticket_number })),
    services: b.services.map(({ total_minor, ...s }) => ({ ...s, total: money(total_minor, b.currency) })),
  };
}

/**
 * The flights port on the supplier simulator (src/suppliers/simulator/air). Its offers are
 * signed fare codes that carry their own price, so a re-price knows the searched one. It has
 * no cancellation quotes: a quote is what the booking says a refund gives back now, and
 * confirming it is the simulator's refund. The sandbox scenario of the call goes with it as
 * the simulator's header (src/suppliers/http.ts).
 */
export function simulatorFlightSupplier(baseUrl: string, timeoutMs?: number): FlightSupplier {
  const callSupplier = <T>(url: string, init: Parameters<typeof callWithin>[1]) => callWithin<T>(url, { timeoutMs, ...init });
  const url = (path: string) => `${baseUrl}/air${path}`;
  const pnrUrl = (pnr: string, action = '') => url(`/bookings/${encodeURIComponent(pnr)}${action ? `/${action}` : ''}`);
  const code = (offerId: string) => ({ fare_source_code: offerId });
  const booking = (pnr: string) => callSupplier<SimBooking>(pnrUrl(pnr), { method: 'GET' });
  return {
    name: 'simulator',
    // The simulator's airports name their city by the hotel side's city id.
    airports: async () =>
      (await callSupplier<{ airports: Array<Omit<Airport, 'city_code'> & { city_id: number }> }>(url('/airports'), { method: 'GET' })).airports.map(
        ({ city_id, ...a }) => ({ ...a, city_code: String(city_id) }),
      ),

    search: async (req) => {
      const found = await callSupplier<{ search_id: string; offers: SimOffer[] }>(url('/search'), { method: 'POST', body: req });
      return {
        search_id: found.search_id,
        offers: found.offers.map(({ fare_source_code, total_price_minor, currency, ...rest }) => ({
          ...rest,
          offer_id: fare_source_code,
          total: money(total_price_minor, currency),
          expires_at: null,
        })),
      };
    },

    price: async (offerId): Promise<PricedOffer> => {
      const r = await callSupplier<SimRevalidation>(url('/revalidate'), { method: 'POST', body: code(offerId) });
      return {
        available: r.is_valid,
        offer_id: r.fare_source_code,
        total: money(r.total_price_minor, r.currency),
        searched_total: money(r.original_price_minor, r.currency),
        expires_at: null,
        seats_left: r.seats_left,
        legs: r.legs,
        passengers: r.passengers,
        identity_documents_required: false,
      };
    },

    conditions: async (offerId): Promise<FareConditions> => {
      const r = await callSupplier<SimRules>(url('/rules'), { method: 'POST', body: code(offerId) });
      const { currency } = r;
      const change = r.rules.find((x) => x.category === 'change');
      return {
        fare_family: r.fare_family,
        refund_before_departure: { allowed: r.refundable, penalty: money(r.refund_penalty_minor, currency) },
        change_before_departure: { allowed: change?.allowed ?? true, penalty: money(r.change_penalty_minor, currency) },
        rules: r.rules.map((x) => ({ category: x.category, allowed: x.allowed, penalty: money(x.penalty_minor, currency), text: x.text })),
      };
    },

    baggage: (offerId) => callSupplier<Baggage>(url('/baggage'), { method: 'POST', body: code(offerId) }),

    hold: async (req) =>
      orderOf(
        await callSupplier<SimBooking>(url('/bookings'), {
          method: 'POST',
          body: {
            fare_source_code: req.offerId,
            client_reference: req.clientReference,
            travelers: req.travelers satisfies Traveler[],
            contact: req.contact,
            services: req.services ?? [],
          },
        }),
      ),

    issue: async (orderId, req) =>
      orderOf(await callSupplier<SimBooking>(pnrUrl(orderId, 'ticket'), { method: 'POST', body: { client_reference: req.clientReference } })),

    order: async (orderId) => orderOf(await booking(orderId)),

    release: async (orderId) => orderOf(await callSupplier<SimBooking>(pnrUrl(orderId, 'cancel'), { method: 'POST', body: {} })),

    // The airline says what a refund now gives back: less the fare's penalty, or all while its own change is open.
    quoteCancellation: async (orderId) => {
      const b = await booking(orderId);
      return { quote_id: b.pnr, order_id: b.pnr, refund: money(b.refund_now_minor, b.currency), expires_at: null };
    },

    confirmCancellation: async (quote, req) => {
      const b = await callSupplier<SimBooking>(pnrUrl(quote.order_id, 'refund'), { method: 'POST', body: { client_reference: req.clientReference } });
      return { order_id: b.pnr, refund: money(b.refunded_minor ?? quote.refund.amount_minor, b.currency), confirmed_at: new Date().toISOString() };
    },
  };
}
