/// <reference types="@duffel/api" />
import type { StaysBookingPayload } from '@duffel/api/Stays/Bookings/Bookings';
import type {
  StaysBooking,
  StaysQuote,
  StaysRateCancellationTimeline,
  StaysRoom,
  StaysRoomRate,
  StaysSearchParams,
  StaysSearchResponse,
  StaysSearchResult,
} from '@duffel/api/types';
import { z } from 'zod';
import type { Account } from './account';
import { invalidState, linkedNotFound, notFound, validation } from './errors';
import { newId, newLocator, paginate, parseBody, type Page } from './http';
import { formatMinor, parseMinor } from './money';
import { distanceKm, HOTELS, type Hotel } from './world';

/** A Stays quote as the stand-in gives it: Duffel's quote and when its fixed price lapses. */
export type StandInStaysQuote = StaysQuote & { expires_at: string };

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD');
const guest = z.union([
  z.object({ type: z.literal('adult'), age: z.number().int().min(18).max(130).optional() }),
  z.object({ type: z.literal('child'), age: z.number().int().min(0).max(17) }),
]);
const common = {
  check_in_date: date,
  check_out_date: date,
  rooms: z.number().int().min(1).max(8),
  guests: z.array(guest).min(1).max(16),
  free_cancellation_only: z.boolean().optional(),
};
const searchSchema: z.ZodType<StaysSearchParams> = z.union([
  z.object({
    ...common,
    location: z.object({
      radius: z.number().positive().max(100),
      geographic_coordinates: z.object({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180) }),
    }),
  }),
  z.object({ ...common, accommodation: z.object({ ids: z.array(z.string()).min(1).max(200), fetch_rates: z.boolean().optional() }) }),
]);
const quoteSchema = z.object({ rate_id: z.string().startsWith('rat_') });
const bookingSchema: z.ZodType<StaysBookingPayload> = z.object({
  quote_id: z.string().startsWith('quo_'),
  guests: z.array(z.object({ given_name: z.string().min(1).max(60), family_name: z.string().min(1).max(60) })).min(1),
  email: z.email(),
  phone_number: z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be in E.164 format'),
  accommodation_special_requests: z.string().max(500).optional(),
  metadata: z
    .record(z.string().max(40), z.string().max(500))
    .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys')
    .nullable()
    .optional(),
});

/** The rooms each hotel sells: [name, price factor, bed]. */
const ROOMS = [
  ['Standard Double Room', 1, 'double'],
  ['Deluxe King Room', 1.45, 'king'],
] as const;

interface SearchRecord {
  result: StaysSearchResult;
  hotel: Hotel;
  params: StaysSearchParams;
}

interface RateRecord {
  rate: StaysRoomRate;
  roomName: string;
  searchResultId: string;
  totalMinor: number;
}

interface QuoteRecord {
  quote: StandInStaysQuote;
  rate: RateRecord;
  bookingId?: string;
}

interface BookingRecord {
  booking: StaysBooking;
  quote: QuoteRecord;
}

export interface StaysOptions {
  now: () => Date;
  account: Account;
  /** How long a search result and its rates can be quoted. */
  searchTtlSeconds: number;
  /** How long a quote holds its price. */
  quoteTtlSeconds: number;
}

const DAY_MS = 86_400_000;

/** Duffel Stays: search, rates, quotes, bookings and their cancellation, in memory. */
export class Stays {
  private readonly results = new Map<string, SearchRecord>();
  private readonly rates = new Map<string, RateRecord>();
  private readonly quotes = new Map<string, QuoteRecord>();
  private readonly bookings = new Map<string, BookingRecord>();

  constructor(private readonly opts: StaysOptions) {}

  private nowMs(): number {
    return this.opts.now().getTime();
  }

  search(data: unknown): StaysSearchResponse {
    const params = parseBody(searchSchema, data);
    const nights = Math.round((Date.parse(params.check_out_date) - Date.parse(params.check_in_date)) / DAY_MS);
    if (nights < 1 || nights > 30) {
      throw validation('validation_format', 'check_out_date', '/check_out_date', 'check_out_date must be 1 to 30 nights after check_in_date');
    }
    if (params.check_in_date < this.opts.now().toISOString().slice(0, 10)) {
      throw validation('validation_format', 'check_in_date', '/check_in_date', 'check_in_date must be today or later');
    }
    const hotels =
      'location' in params
        ? HOTELS.filter((h) => distanceKm(h.accommodation.location.geographic_coordinates!, params.location.geographic_coordinates) <= params.location.radius)
        : HOTELS.filter((h) => params.accommodation.ids.includes(h.accommodation.id));
    const createdAt = this.opts.now().toISOString();
    const expiresAt = new Date(this.nowMs() + this.opts.searchTtlSeconds * 1000).toISOString();
    const results = hotels.map((hotel) => {
      const cheapest = this.totalMinor(hotel, nights, params.rooms, 1, 1);
      const result: StaysSearchResult = {
        id: newId('srr'),
        check_in_date: params.check_in_date,
        check_out_date: params.check_out_date,
        rooms: params.rooms,
        guests: params.guests,
        accommodation: { ...hotel.accommodation, rooms: [] },
        cheapest_rate_total_amount: formatMinor(cheapest, hotel.currency),
        cheapest_rate_currency: hotel.currency,
        cheapest_rate_base_amount: formatMinor(cheapest - Math.round(cheapest * 0.1), hotel.currency),
        cheapest_rate_base_currency: hotel.currency,
        cheapest_rate_public_amount: formatMinor(cheapest, hotel.currency),
        cheapest_rate_public_currency: hotel.currency,
        cheapest_rate_due_at_accommodation_amount: null,
        cheapest_rate_due_at_accommodation_currency: null,
        expires_at: expiresAt,
      };
      this.results.set(result.id, { result, hotel, params });
      return result;
    });
    return { results, created_at: createdAt };
  }

  private totalMinor(hotel: Hotel, nights: number, rooms: number, roomFactor: number, rateFactor: number): number {
    return Math.round(hotel.nightlyMinor * nights * rooms * roomFactor * rateFactor);
  }

  fetchAllRates(id: string): StaysSearchResult {
    const record = this.results.get(id);
    if (!record) throw notFound();
    if (Date.parse(record.result.expires_at) <= this.nowMs()) {
      throw invalidState('result_no_longer_available', 'Search result no longer available', 'This search result has expired; search again.');
    }
    if (record.result.accommodation.rooms.length > 0) return record.result;
    const { hotel, params } = record;
    const nights = Math.round((Date.parse(params.check_out_date) - Date.parse(params.check_in_date)) / DAY_MS);
    const checkIn = Date.parse(`${params.check_in_date}T00:00:00Z`);
    const rooms: StaysRoom[] = ROOMS.map(([roomName, roomFactor, bed]) => ({
      name: roomName,
      beds: [{ type: bed, count: 1 }],
      photos: [],
      rates: (
        [
          ['room_only', 1, false],
          ['breakfast', 1.12, true],
        ] as const
      ).map(([board, boardFactor, refundable]) => {
        const total = this.totalMinor(hotel, nights, params.rooms, roomFactor, boardFactor * (refundable ? 1.1 : 1));
        const timeline: StaysRateCancellationTimeline[] = refundable
          ? [
              { before: new Date(checkIn - 3 * DAY_MS).toISOString(), refund_amount: formatMinor(total, hotel.currency), currency: hotel.currency },
              { before: new Date(checkIn - DAY_MS).toISOString(), refund_amount: formatMinor(Math.round(total / 2), hotel.currency), currency: hotel.currency },
            ].filter((t) => Date.parse(t.before) > this.nowMs())
          : [];
        const tax = Math.round(total * 0.1);
        const rate: StaysRoomRate = {
          id: newId('rat'),
          code: null,
          name: null,
          description: null,
          source: 'duffel',
          board_type: board,
          payment_type: 'pay_now',
          available_payment_methods: ['balance'],
          cancellation_timeline: timeline,
          conditions: [],
          quantity_available: 5,
          total_amount: formatMinor(total, hotel.currency),
          total_currency: hotel.currency,
          base_amount: formatMinor(total - tax, hotel.currency),
          base_currency: hotel.currency,
          tax_amount: formatMinor(tax, hotel.currency),
          tax_currency: hotel.currency,
          fee_amount: null,
          fee_currency: hotel.currency,
          due_at_accommodation_amount: null,
          due_at_accommodation_currency: hotel.currency,
          supported_loyalty_programme: null,
          loyalty_programme_required: false,
          estimated_commission_amount: null,
          estimated_commission_currency: null,
          expires_at: record.result.expires_at,
        };
        this.rates.set(rate.id, { rate, roomName, searchResultId: id, totalMinor: total });
        return rate;
      }),
    }));
    record.result = { ...record.result, accommodation: { ...record.result.accommodation, rooms } };
    return record.result;
  }

  createQuote(data: unknown): StandInStaysQuote {
    const { rate_id } = parseBody(quoteSchema, data);
    const rate = this.rates.get(rate_id);
    if (!rate) throw linkedNotFound('rate_id');
    if (Date.parse(rate.rate.expires_at) <= this.nowMs()) {
      throw invalidState('rate_unavailable', 'Rate unavailable', 'The rate is no longer available; fetch the rates again.');
    }
    const search = this.results.get(rate.searchResultId)!;
    const room: StaysRoom = { name: rate.roomName, rates: [rate.rate] };
    const currency = rate.rate.total_currency;
    const quote: StandInStaysQuote = {
      id: newId('quo'),
      check_in_date: search.params.check_in_date,
      check_out_date: search.params.check_out_date,
      rooms: search.params.rooms,
      guests: search.params.guests,
      accommodation: { ...search.hotel.accommodation, rooms: [room] },
      total_amount: rate.rate.total_amount,
      total_currency: currency,
      base_amount: rate.rate.base_amount,
      base_currency: currency,
      tax_amount: rate.rate.tax_amount,
      tax_currency: currency,
      fee_amount: null,
      fee_currency: currency,
      due_at_accommodation_amount: null,
      due_at_accommodation_currency: currency,
      deposit_amount: null,
      deposit_currency: currency,
      supported_loyalty_programme: null,
      expires_at: new Date(this.nowMs() + this.opts.quoteTtlSeconds * 1000).toISOString(),
    };
    this.quotes.set(quote.id, { quote, rate });
    return quote;
  }

  getQuote(id: string): StandInStaysQuote {
    const record = this.quotes.get(id);
    if (!record) throw notFound();
    return record.quote;
  }

  book(data: unknown): StaysBooking {
    const body = parseBody(bookingSchema, data);
    const quote = this.quotes.get(body.quote_id);
    if (!quote) throw linkedNotFound('quote_id');
    if (quote.bookingId) throw invalidState('already_booked', 'Quote already booked', 'A booking has already been made from this quote.');
    if (Date.parse(quote.quote.expires_at) <= this.nowMs()) {
      throw invalidState('quote_no_longer_available', 'Quote no longer available', 'The quote has expired; request a new quote.');
    }
    const id = newId('bok');
    this.opts.account.debit(quote.quote.total_currency, quote.rate.totalMinor, id, 'stays_payment');
    const booking: StaysBooking = {
      id,
      reference: newLocator(8),
      status: 'confirmed',
      confirmed_at: this.opts.now().toISOString(),
      cancelled_at: null,
      accommodation: quote.quote.accommodation,
      check_in_date: quote.quote.check_in_date,
      check_out_date: quote.quote.check_out_date,
      rooms: quote.quote.rooms,
      guests: body.guests.map(({ given_name, family_name }) => ({ given_name, family_name })),
      email: body.email,
      phone_number: body.phone_number,
      metadata: body.metadata ?? null,
      key_collection: null,
      supported_loyalty_programme: null,
      loyalty_programme_account_number: null,
      estimated_commission_amount: null,
      estimated_commission_currency: null,
    };
    quote.bookingId = id;
    this.bookings.set(id, { booking, quote });
    return booking;
  }

  getBooking(id: string): StaysBooking {
    const record = this.bookings.get(id);
    if (!record) throw notFound();
    return record.booking;
  }

  listBookings(query: Record<string, string>): Page<StaysBooking> {
    return paginate(
      [...this.bookings.values()].map((b) => b.booking),
      query,
    );
  }

  /** Cancels a booking; the refund is the first step of the rate's cancellation timeline still ahead. */
  cancel(id: string): StaysBooking {
    const record = this.bookings.get(id);
    if (!record) throw notFound();
    if (record.booking.status === 'cancelled') {
      throw invalidState('already_cancelled', 'Booking already cancelled', 'The booking has already been cancelled.');
    }
    const rate = record.quote.rate.rate;
    const step = [...rate.cancellation_timeline].sort((a, b) => Date.parse(a.before) - Date.parse(b.before)).find((t) => Date.parse(t.before) > this.nowMs());
    const refundMinor = step ? (parseMinor(step.refund_amount, step.currency) ?? 0) : 0;
    if (refundMinor > 0) this.opts.account.credit(rate.total_currency, refundMinor, id, 'stays_refund');
    record.booking = { ...record.booking, status: 'cancelled', cancelled_at: this.opts.now().toISOString() };
    return record.booking;
  }

  // ---- controls ----

  expireQuote(id: string): void {
    const record = this.quotes.get(id);
    if (!record) throw notFound();
    record.quote = { ...record.quote, expires_at: new Date(this.nowMs() - 1000).toISOString() };
  }

  /** Expires a search result and the rates fetched from it. */
  expireSearchResult(id: string): void {
    const record = this.results.get(id);
    if (!record) throw notFound();
    const past = new Date(this.nowMs() - 1000).toISOString();
    record.result = { ...record.result, expires_at: past };
    for (const rate of this.rates.values()) if (rate.searchResultId === id) rate.rate = { ...rate.rate, expires_at: past };
  }
}
