import { callSupplier as callWithin } from '../../http';
import type {
  AvailabilityRequest,
  HotelSupplier,
  Money,
  Stay,
  RateQuote,
  StayHold,
  StayHoldStatus,
  SupplierCity,
  SupplierHotel,
  SupplierHotelDetail,
  SupplierRate,
} from '../../hotels';

/** The simulator's own shapes: amounts in minor units of one `currency` per answer. */
interface SimRate extends Omit<SupplierRate, 'rate_id' | 'total'> {
  rate_key: string;
  total_price_minor: number;
  currency: string;
}

type SimPolicy = Array<{ from: string; penalty_minor: number }>;

/** The simulator states a stay as the port does. */
type SimStay = Stay;

interface SimRateCheck extends SimStay {
  rate_key: string;
  nationality: string;
  total_price_minor: number;
  original_price_minor: number;
  currency: string;
  cancellation_policy: SimPolicy;
  expires_at: string;
}

interface SimHold extends SimStay {
  hold_id: string;
  status: 'prebooked' | 'held' | 'confirmed' | 'released' | 'expired' | 'cancelled';
  expires_at: string;
  total_price_minor: number;
  currency: string;
  cancellation_policy: SimPolicy;
  confirmation_number: string | null;
}

const STATUS: Record<SimHold['status'], StayHoldStatus> = {
  prebooked: 'held',
  held: 'held',
  confirmed: 'booked',
  released: 'released',
  expired: 'expired',
  cancelled: 'cancelled',
};

const money = (amount_minor: number, currency: string): Money => ({ amount_minor, currency });
const timeline = (policy: SimPolicy, currency: string) => policy.map((s) => ({ from: s.from, penalty: money(s.penalty_minor, currency) }));
const stayOf = (s: SimStay) => ({
  hotel_id: s.hotel_id,
  hotel_name: s.hotel_name,
  city_id: s.city_id,
  room_name: s.room_name,
  board: s.board,
  refundable: s.refundable,
  check_in: s.check_in,
  check_out: s.check_out,
  rooms: s.rooms,
});

function holdOf(h: SimHold): StayHold {
  return {
    ...stayOf(h),
    hold_id: h.hold_id,
    status: STATUS[h.status],
    expires_at: h.expires_at,
    total: money(h.total_price_minor, h.currency),
    cancellation_timeline: timeline(h.cancellation_policy, h.currency),
    booking_reference: h.confirmation_number,
  };
}

/**
 * The stays port on the supplier simulator (src/suppliers/simulator/hotels): a hold is the
 * simulator's hold, booking it is its confirmation. Its rate keys are signed and carry the
 * price they were found at. The sandbox scenario of the call goes with it as the simulator's
 * header (src/suppliers/http.ts).
 */
export function simulatorHotelSupplier(baseUrl: string, timeoutMs?: number): HotelSupplier {
  const callSupplier = <T>(url: string, init: Parameters<typeof callWithin>[1]) => callWithin<T>(url, { timeoutMs, ...init });
  const url = (path: string) => `${baseUrl}/hotels${path}`;
  const holdUrl = (id: string, action = '') => url(`/holds/${encodeURIComponent(id)}${action ? `/${action}` : ''}`);
  const post = async (path: string, body: unknown) => holdOf(await callSupplier<SimHold>(path, { method: 'POST', body }));
  return {
    name: 'simulator',
    requiresPhone: false,
    cities: async () => (await callSupplier<{ cities: SupplierCity[] }>(url('/cities'), { method: 'GET' })).cities,
    hotel: (hotelId) => callSupplier<SupplierHotelDetail>(url(`/${hotelId}`), { method: 'GET' }),

    search: async (req: AvailabilityRequest) => {
      const found = await callSupplier<{ search_id: string; hotels: Array<Omit<SupplierHotel, 'rates'> & { rates: SimRate[] }> }>(url('/availability'), {
        method: 'POST',
        body: req,
        timeoutMs: 30_000,
      });
      return {
        search_id: found.search_id,
        hotels: found.hotels.map((h) => ({
          ...h,
          rates: h.rates.map(({ rate_key, total_price_minor, currency, ...rate }) => ({
            ...rate,
            rate_id: rate_key,
            total: money(total_price_minor, currency),
          })),
        })),
      };
    },

    checkRate: async (rateId): Promise<RateQuote> => {
      const r = await callSupplier<SimRateCheck>(url('/rates/check'), { method: 'POST', body: { rate_key: rateId } });
      return {
        ...stayOf(r),
        rate_id: r.rate_key,
        nationality: r.nationality,
        total: money(r.total_price_minor, r.currency),
        searched_total: money(r.original_price_minor, r.currency),
        cancellation_timeline: timeline(r.cancellation_policy, r.currency),
        expires_at: r.expires_at,
      };
    },

    hold: (req) => post(url('/holds'), { rate_key: req.rateId, client_reference: req.clientReference, guests: req.guests, contact: req.contact }),
    addGuests: (holdId, guests, contact) => post(holdUrl(holdId, 'guests'), { guests, contact }),
    // The simulator took the guests with the hold (or addGuests): booking is its confirmation.
    book: (holdId, req) => post(holdUrl(holdId, 'confirm'), { client_reference: req.clientReference }),
    retrieve: async (holdId) => holdOf(await callSupplier<SimHold>(holdUrl(holdId), { method: 'GET' })),
    release: (holdId) => post(holdUrl(holdId, 'release'), {}),

    cancel: async (bookingReference, req) => {
      await callSupplier(url(`/bookings/${encodeURIComponent(bookingReference)}/cancel`), { method: 'POST', body: { client_reference: req.clientReference } });
      return { status: 'cancelled', refund: null };
    },
  };
}
