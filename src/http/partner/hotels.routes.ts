import { createRoute, z } from '@hono/zod-openapi';
import type { HotelBookingRow } from '../../domain/hotels/bookings';
import { quoteCancellation } from '../../domain/hotels/cancellation';
import * as hotels from '../../domain/hotels/service';
import { formatDecimal } from '../../domain/money/money';
import type { QuotedTerms } from '../../domain/refund-terms';
import type { WalletPolicyStep as PolicyStep } from '../../domain/hotels/prices';
import { partnerPricing, workflowDeps, type ApiDeps } from '../deps';
import type { Partner } from '../../domain/partners';
import { created, doneOrUnderWay, ok, partnerRouter } from './router';
import { bodyId, calendarDate, country, email, exactlyOneOf, nationalId, opaque, passportNumber, phone, text } from '../vocabulary';
import { sandboxScenario, scenarioOf } from '../sandbox-scenario';
import { searchAnswer } from '../search-answer';
import { stayTerms } from '../../suppliers/stay-terms';
import { commonErrors, Decimal, errorResponse, json, jsonBody, partnerOperations, renderMoneyBack, renderTravelOrder, TravelOrder } from './schemas';

const StayDate = calendarDate('travel');
const Id = bodyId();
const Country = country();

const RoomRequest = z
  .object({
    adult_count: z.number().int().min(1).max(8),
    child_count: z.number().int().min(0).max(6).default(0),
    child_ages: z.array(z.number().int().min(0, 'ages are 0 to 17').max(17, 'ages are 0 to 17')).default([]),
  })
  .refine((r) => r.child_ages.length === r.child_count, { message: 'give one age per child (child_count)', path: ['child_ages'] });

const SearchBody = exactlyOneOf(
  z.object({
    check_in: StayDate,
    check_out: StayDate,
    city_id: Id.optional(),
    hotel_id: Id.optional(),
    nationality_id: Country.openapi({ description: 'Guest nationality; prices and rules depend on it' }),
    rooms: z.array(RoomRequest).min(1, 'at least one room').max(8, 'at most 8 rooms'),
    is_domestic: z.boolean().optional().openapi({ description: 'true: Iranian hotels only; false: international only; omitted: both' }),
  }),
  'city_id',
  'hotel_id',
).openapi('HotelSearchRequest');

const Policy = z.array(z.object({ from: z.string(), penalty: Decimal })).openapi({ description: 'From each moment on, this penalty applies' });

const Rate = z.object({
  rate_key: z.string(),
  room_name: z.string(),
  board: z.string().openapi({ description: 'RO room only, BB bed and breakfast, HB half board' }),
  total_price: Decimal.openapi({ description: 'The whole stay, all rooms' }),
  currency: z.string(),
  refundable: z.boolean(),
  rooms: z.number().int(),
});
const SearchResult = z
  .object({
    search_id: z.string(),
    results: z.array(
      z.object({ hotel_id: z.number().int(), name: z.string(), stars: z.number().int(), city_id: z.number().int(), address: z.string(), rates: z.array(Rate) }),
    ),
  })
  .openapi('HotelSearchResult');

const Occupancy = z.object({ adults: z.number().int(), children_ages: z.array(z.number().int()) });
const RateCheck = z
  .object({
    rate_key: z.string(),
    ...stayTerms,
    rooms: z.array(Occupancy),
    total_price: Decimal,
    previous_price: Decimal,
    price_changed: z.boolean(),
    currency: z.string(),
    cancellation_policy: Policy,
    expires_at: z.string().openapi({ description: 'Until when the rate_key can be booked' }),
  })
  .openapi('HotelRateCheck');

const Guest = z.object({
  first_name: text(100),
  last_name: text(100),
  nationality: Country,
  national_id: nationalId().optional().openapi({ description: 'Required for Iranian nationals: 10 digits with a valid check digit' }),
  passport_number: passportNumber().optional().openapi({ description: 'Required for foreign nationals' }),
});
const Contact = z.object({
  phone_number: phone(),
  email: email(),
});

const Booking = z
  .object({
    booking_id: z.number().int(),
    status: z.string().openapi({
      example: 'held',
      description:
        'placing (the hotel has not answered yet: follow it with booking_data by booking_id), prebooked, held, confirmed, cancelled, expired, released or failed',
    }),
    order_id: z.number().int().nullable(),
    expires_at: z.string().nullable(),
    total_price: Decimal.nullable(),
    currency: z.string(),
    hotel_id: z.number().int().nullable(),
    hotel_name: z.string().nullable(),
    city_id: z.number().int().nullable(),
    room_name: z.string().nullable(),
    board: z.string().nullable(),
    refundable: z.boolean().nullable(),
    check_in: z.string().nullable(),
    check_out: z.string().nullable(),
    rooms: z.array(Occupancy).nullable(),
    guests: z.array(z.array(z.unknown())),
    contact: Contact.nullable(),
    confirmation_number: z.string().nullable(),
    cancellation_policy: Policy,
  })
  .openapi('HotelBooking');

/** What prebook and book answer: the hold, and whether the hotel held it at the price of the search. */
const HeldBooking = Booking.extend({
  price_changed: z.boolean().openapi({ description: 'The hotel held the room at another price than the search showed (total_price is the new one)' }),
  previous_price: Decimal.nullable().openapi({
    description: 'The price of the search the rate_key came from; book with a booking_id keeps the prebook’s price (price_changed false)',
  }),
}).openapi('HotelHold');

const BookBody = exactlyOneOf(
  z.object({
    rate_key: opaque(4000).optional(),
    booking_id: Id.optional().openapi({ description: 'A prebooked booking to give its guests' }),
    guests: z.array(z.array(Guest).min(1, 'each room needs at least one guest')).min(1).openapi({ description: 'One list of guests per room' }),
    contact: Contact,
  }),
  'rate_key',
  'booking_id',
).openapi('HotelBookRequest');

const CancelQuote = z
  .object({
    order_id: z.number().int(),
    order_status: z.string(),
    penalty: Decimal,
    refund_amount: Decimal,
    currency: z.string(),
    quote_id: z.string(),
    expires_at: z.string(),
  })
  .openapi('HotelCancelQuote');

const Cancelled = z
  .object({
    order_id: z.number().int(),
    status: z.string(),
    penalty: Decimal.optional(),
    refund_amount: Decimal.optional(),
    currency: z.string().optional(),
    ledger_id: z.number().int().nullable().optional(),
    cancellation_id: z.string().optional(),
  })
  .openapi('HotelCancellation');

const renderPolicy = (policy: PolicyStep[] | null, currency: string): z.infer<typeof Policy> =>
  (policy ?? []).map((s) => ({ from: s.from, penalty: formatDecimal(s.penalty_minor, currency) }));

function renderSearch(found: { search_id: string; hotels: hotels.PartnerHotel[] }, currency: string): z.infer<typeof SearchResult> {
  return {
    search_id: found.search_id,
    results: found.hotels.map((h) => ({
      hotel_id: h.hotel_id,
      name: h.name,
      stars: h.stars,
      city_id: h.city_id,
      address: h.address,
      rates: h.rates.map((r) => ({
        rate_key: r.code,
        room_name: r.room_name,
        board: r.board,
        total_price: formatDecimal(r.priceMinor, currency),
        currency,
        refundable: r.refundable,
        rooms: r.rooms,
      })),
    })),
  };
}

function renderRateCheck(rate: hotels.PartnerRateCheck, currency: string): z.infer<typeof RateCheck> {
  return {
    rate_key: rate.rateKey,
    hotel_id: rate.hotel_id,
    hotel_name: rate.hotel_name,
    city_id: rate.city_id,
    room_name: rate.room_name,
    board: rate.board,
    refundable: rate.refundable,
    check_in: rate.check_in,
    check_out: rate.check_out,
    rooms: rate.rooms,
    total_price: formatDecimal(rate.priceMinor, currency),
    previous_price: formatDecimal(rate.previousMinor, currency),
    price_changed: rate.priceMinor !== rate.previousMinor,
    currency,
    cancellation_policy: renderPolicy(rate.policy, currency),
    expires_at: rate.expiresAt,
  };
}

function renderBooking(b: HotelBookingRow): z.infer<typeof Booking> {
  return {
    booking_id: b.id,
    status: b.status,
    order_id: b.orderId,
    expires_at: b.expiresAt?.toISOString() ?? null,
    total_price: b.totalPrice === null ? null : formatDecimal(b.totalPrice, b.currency),
    currency: b.currency,
    hotel_id: b.hotelId,
    hotel_name: b.hotelName,
    city_id: b.cityId,
    room_name: b.roomName,
    board: b.board,
    refundable: b.refundable,
    check_in: b.checkIn,
    check_out: b.checkOut,
    rooms: b.rooms,
    guests: b.guests ?? [],
    contact: b.contact,
    confirmation_number: b.confirmationNumber,
    cancellation_policy: renderPolicy(b.cancellationPolicy, b.currency),
  };
}

function renderHeld({ booking, searchedPriceMinor }: hotels.PlacedHold): z.infer<typeof HeldBooking> {
  const previous = searchedPriceMinor ?? booking.totalPrice;
  return {
    ...renderBooking(booking),
    price_changed: searchedPriceMinor !== null && booking.totalPrice !== null && booking.totalPrice !== searchedPriceMinor,
    previous_price: previous === null ? null : formatDecimal(previous, booking.currency),
  };
}

function renderQuote(q: QuotedTerms): z.infer<typeof CancelQuote> {
  const c = q.order.currency;
  return {
    order_id: q.order.id,
    order_status: q.order.status,
    penalty: formatDecimal(q.penaltyMinor, c),
    refund_amount: formatDecimal(q.refundMinor, c),
    currency: c,
    quote_id: q.quoteId,
    expires_at: q.expiresAt.toISOString(),
  };
}

const OrderIdBody = z.object({ order_id: Id });
/** A booking found by its order, or by its own id before it has one (a hold that book answered still `placing`). */
const BookingDataBody = exactlyOneOf(
  z.object({
    order_id: Id.optional().openapi({ description: 'The hotel order' }),
    booking_id: Id.optional().openapi({ description: 'The booking, ordered or not (a hold that book answered `placing` is followed by it)' }),
  }),
  'order_id',
  'booking_id',
).openapi('HotelBookingDataRequest');
const tags = ['Hotels'];
const { get, post } = partnerOperations(tags);
const rateScenario = sandboxScenario('hotelRate');
const holdScenario = sandboxScenario('hotelHold');
const cancelScenario = sandboxScenario('hotelCancel');

const routes = {
  cities: createRoute({
    ...get('/hotel/cities/', 'Cities with hotels (extension), to find city_id'),
    request: { query: z.object({ search: text(100, { blank: true }).optional() }) },
    responses: {
      200: json(z.array(z.object({ id: z.number().int(), name: z.string(), iata_code: z.string(), country: z.string(), domestic: z.boolean() })), 'Cities'),
      401: commonErrors[401],
    },
  }),
  search: createRoute({
    ...post('/hotel/search_hotels/', 'Search hotels with rates priced for the whole stay'),
    request: { body: jsonBody(SearchBody) },
    responses: { 200: json(SearchResult, 'Hotels and rates'), ...commonErrors },
  }),
  checkRate: createRoute({
    ...post('/hotel/check_rate/', 'Confirm the current price and cancellation policy of a rate'),
    request: { body: jsonBody(z.object({ rate_key: opaque(4000) })), headers: rateScenario },
    responses: { 200: json(RateCheck, 'The rate now'), ...commonErrors },
  }),
  prebook: createRoute({
    ...post('/hotel/prebook/', 'Hold the room provisionally, without guest names (short hold)'),
    request: { body: jsonBody(z.object({ rate_key: opaque(4000) })), headers: holdScenario },
    responses: { 200: json(HeldBooking, 'The provisional hold'), ...commonErrors },
  }),
  book: createRoute({
    ...post('/hotel/book/', 'Hold the room with guest details'),
    request: { body: jsonBody(BookBody), headers: holdScenario },
    responses: { 200: json(HeldBooking, 'The hold'), ...commonErrors },
  }),
  order: createRoute({
    ...post('/hotel/order/', 'Turn a held booking into a travel order to pay'),
    request: { body: jsonBody(z.object({ booking_id: Id })) },
    responses: {
      201: json(TravelOrder.extend({ booking_id: z.number().int(), hold_expires_at: z.string().nullable() }), 'The pending travel order'),
      ...commonErrors,
    },
  }),
  bookingData: createRoute({
    ...post('/hotel/booking_data/', 'Current data of a hotel booking, by its order or by its booking_id'),
    request: { body: jsonBody(BookingDataBody) },
    responses: {
      200: json(z.object({ order: TravelOrder.nullable(), booking: Booking.nullable() }), 'Order (null for a booking not ordered yet) and booking'),
      ...commonErrors,
    },
  }),
  cancelDisplay: createRoute({
    ...post('/hotel/cancel_display/', 'Preview the cancellation penalty, as a quote'),
    request: { body: jsonBody(OrderIdBody) },
    responses: { 200: json(CancelQuote, 'Penalty and refund now'), ...commonErrors },
  }),
  cancel: createRoute({
    ...post('/hotel/cancel/', 'Cancel: the hotel cancels, then the refund is credited to the wallet'),
    request: { body: jsonBody(OrderIdBody.extend({ quote_id: opaque(100).optional() })), headers: cancelScenario },
    responses: {
      200: json(Cancelled, 'Cancelled'),
      202: json(Cancelled, 'Still cancelling with the hotel'),
      ...commonErrors,
      502: errorResponse('The hotel refused the cancellation; nothing changed'),
    },
  }),
};

export function hotelRoutes(deps: ApiDeps) {
  const hotelDeps = { ...workflowDeps(deps), supplier: deps.hotelSupplier };
  const pricing = (c: { get(key: 'partner'): Partner }) => partnerPricing(deps, c.get('partner'));
  return partnerRouter()
    .openapi(routes.cities, async (c) => ok(c, await hotels.listCities(deps.hotelSupplier, c.req.valid('query').search)))
    .openapi(routes.search, async (c) => {
      const answer = await hotels.searchHotels(deps.hotelSupplier, pricing(c), c.req.valid('json'), new Date(), c.get('partner').id);
      return searchAnswer(c, answer, (sold) => ({ ok: true, data: renderSearch(sold, c.get('partner').currency) })) as never;
    })
    .openapi(routes.checkRate, async (c) => {
      const rate = await hotels.checkRate(
        deps.hotelSupplier,
        pricing(c),
        c.get('partner').id,
        c.req.valid('json').rate_key,
        scenarioOf(deps, c.req.valid('header')),
      );
      return ok(c, renderRateCheck(rate, c.get('partner').currency));
    })
    .openapi(routes.prebook, async (c) => {
      const out = await hotels.prebook(hotelDeps, c.get('partner'), c.req.valid('json').rate_key, pricing(c), scenarioOf(deps, c.req.valid('header')));
      return ok(c, renderHeld(out));
    })
    .openapi(routes.book, async (c) => {
      const out = await hotels.book(hotelDeps, c.get('partner'), c.req.valid('json'), pricing(c), scenarioOf(deps, c.req.valid('header')));
      return ok(c, renderHeld(out));
    })
    .openapi(routes.order, async (c) => {
      const { order, booking } = await hotels.order(deps.db, c.get('partner'), c.req.valid('json').booking_id);
      return created(c, { ...renderTravelOrder(order), booking_id: booking.id, hold_expires_at: booking.expiresAt?.toISOString() ?? null });
    })
    .openapi(routes.bookingData, async (c) => {
      const { order, booking } = await hotels.bookingData(deps.db, c.get('partner'), c.req.valid('json'));
      return ok(c, { order: order ? renderTravelOrder(order) : null, booking: booking ? renderBooking(booking) : null });
    })
    .openapi(routes.cancelDisplay, async (c) =>
      ok(c, renderQuote(await quoteCancellation(deps.db, c.get('partner').id, c.req.valid('json').order_id, new Date()))),
    )
    .openapi(routes.cancel, async (c) => {
      const out = await hotels.cancel(hotelDeps, c.get('partner'), c.req.valid('json'), scenarioOf(deps, c.req.valid('header')));
      return doneOrUnderWay(c, renderMoneyBack(out, { done: 'cancelled', underWay: 'cancelling', idField: 'cancellation_id' }));
    });
}
