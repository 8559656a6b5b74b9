import { createRoute, z } from '@hono/zod-openapi';
import { PARTS } from '../../health/model';
import * as agency from '../../domain/agency/hotels';
import { toNumber } from '../../domain/money/money';
import type { SupplierHotelDetail } from '../../suppliers/hotels';
import { partnerPricing, workflowDeps, type ApiDeps } from '../deps';
import { calendarDate, email, opaque, queryInt, text } from '../vocabulary';
import { sandboxScenario, scenarioOf } from '../sandbox-scenario';
import { jsonBody } from '../openapi-document';
import { searchAnswer } from '../search-answer';
import { agencyOperations, agencyRouter, bError, bErrors, bJson } from './router';

const StayDate = calendarDate('travel');
const IdempotencyHeader = z
  .object({
    'idempotency-key': opaque(128)
      .optional()
      .openapi({ param: { name: 'idempotency-key', in: 'header' }, description: 'A retried create with the same key returns the same booking (extension)' }),
  })
  .extend(sandboxScenario('agencyBooking').shape);

const Room = z.object({
  room_id: z.string(),
  name: z.string(),
  board: z.string(),
  max_guests: z.number().int(),
  price_per_night: z.number(),
  total_price: z.number(),
  currency: z.string(),
  refundable: z.boolean(),
});
const SearchResult = z
  .object({
    results: z.array(
      z.object({ hotel_id: z.string(), name: z.string(), stars: z.number().int(), city: z.string(), address: z.string(), rooms: z.array(Room) }),
    ),
    count: z.number().int(),
  })
  .openapi('HotelSearchResponse');

const Booking = z
  .object({
    booking_id: z.string(),
    status: z.enum(['pending', 'active', 'cancelled', 'completed']),
    hotel_id: z.string(),
    room_id: z.string(),
    guest_name: z.string(),
    guest_email: z.string(),
    check_in: z.string(),
    check_out: z.string(),
    special_requests: z.string().nullable(),
    total_price: z.number().nullable(),
    currency: z.string(),
    created_at: z.string(),
  })
  .openapi('Booking');

const CreateBooking = z
  .object({
    hotel_id: opaque(20),
    room_id: opaque(40),
    guest_name: text(200).openapi({ description: 'Full name of the primary guest' }),
    guest_email: email(),
    check_in: StayDate,
    check_out: StayDate,
    special_requests: text(1000, { blank: true }).optional(),
    guests: z.number().int().min(1).max(8).default(1).openapi({ description: 'Guests in the room (extension; as in the search)' }),
  })
  .openapi('BookingCreate');

const CancelResult = z.object({ booking_id: z.string(), refund_amount: z.number(), currency: z.string() });

function renderSearch({ city, nights, hotels }: agency.AgencySearch, currency: string): z.infer<typeof SearchResult> {
  const results = hotels.map((h) => ({
    hotel_id: String(h.hotel_id),
    name: h.name,
    stars: h.stars,
    city: city.name,
    address: h.address,
    rooms: h.rates.map((r) => ({
      room_id: agency.roomIdOf(r),
      name: r.room_name,
      board: r.board,
      max_guests: r.max_occupancy,
      price_per_night: toNumber(Math.round(r.priceMinor / nights), currency),
      total_price: toNumber(r.priceMinor, currency),
      currency,
      refundable: r.refundable,
    })),
  }));
  return { results, count: results.length };
}

/** A hotel's detail: each room with the room_ids that book it (every board, flexible or not). */
function renderHotel(h: SupplierHotelDetail) {
  return {
    hotel_id: String(h.hotel_id),
    name: h.name,
    stars: h.stars,
    city: h.city,
    address: h.address,
    rooms: h.rooms.map((r) => ({
      name: r.room_name,
      max_guests: r.max_occupancy,
      room_ids: ['RO', 'BB', 'HB'].flatMap((board) => [true, false].map((refundable) => agency.roomIdOf({ room_code: r.room_code, board, refundable }))),
    })),
    amenities: h.amenities,
    policies: h.policies,
  };
}

function renderBooking({ booking: b, status }: agency.AgencyBooking): z.infer<typeof Booking> {
  return {
    booking_id: String(b.id),
    status,
    hotel_id: String(b.hotelId),
    room_id: b.agency!.room_id,
    guest_name: b.agency!.guest_name,
    guest_email: b.agency!.guest_email,
    check_in: b.checkIn!,
    check_out: b.checkOut!,
    special_requests: b.agency!.special_requests,
    total_price: b.totalPrice === null ? null : toNumber(b.totalPrice, b.currency),
    currency: b.currency,
    created_at: b.createdAt.toISOString(),
  };
}

const tags = ['Hotel Booking'];
const { del, get, post } = agencyOperations(tags);

const routes = {
  search: createRoute({
    ...get('/hotels/search', 'Search hotels in a city'),
    request: {
      query: z.object({
        city: text(100).openapi({ description: 'City name (any case) or IATA code' }),
        check_in: StayDate,
        check_out: StayDate,
        guests: queryInt(1, 8).default(1),
        stars: queryInt(1, 5).optional().openapi({ description: 'Minimum star rating' }),
        limit: queryInt(1, 100).default(20),
      }),
    },
    responses: { 200: bJson(SearchResult, 'Hotels with bookable rooms'), 401: bErrors[401], 422: bErrors[422] },
  }),
  hotel: createRoute({
    ...get('/hotels/{hotel_id}', 'A hotel with its rooms, amenities and policies'),
    request: { params: z.object({ hotel_id: opaque(20).openapi({ param: { name: 'hotel_id', in: 'path' } }) }) },
    responses: { 200: bJson(z.record(z.string(), z.unknown()), 'The hotel'), 401: bErrors[401], 404: bErrors[404] },
  }),
  create: createRoute({
    ...post('/hotels/bookings', 'Book: reserve → debit the wallet → confirm; 201 only when confirmed'),
    request: { body: jsonBody(CreateBooking), headers: IdempotencyHeader },
    responses: {
      201: bJson(Booking, 'Confirmed'),
      202: bJson(Booking, 'Still confirming with the hotel'),
      401: bErrors[401],
      402: bError('Insufficient credit'),
      404: bErrors[404],
      422: bErrors[422],
      500: bError('The hotel could not confirm; everything was undone and nothing charged'),
    },
  }),
  list: createRoute({
    ...get('/hotels/bookings', 'The caller’s bookings'),
    request: { query: z.object({ status: z.enum(['active', 'cancelled', 'completed']).optional(), from_date: calendarDate('filter').optional() }) },
    responses: { 200: bJson(z.object({ results: z.array(Booking) }), 'Bookings'), 401: bErrors[401], 422: bErrors[422] },
  }),
  cancel: createRoute({
    ...del('/hotels/bookings/{booking_id}', 'Cancel: refund per the rate’s policy to the wallet; repeating answers the same'),
    request: { params: z.object({ booking_id: opaque(20).openapi({ param: { name: 'booking_id', in: 'path' } }) }) },
    responses: {
      200: bJson(CancelResult.extend({ status: z.literal('cancelled') }), 'Cancelled'),
      202: bJson(
        CancelResult.extend({ status: z.literal('cancelling') }),
        'Still cancelling with the hotel (extension): refund_amount is what was credited so far; repeat the DELETE or list the bookings for the outcome',
      ),
      401: bErrors[401],
      404: bErrors[404],
      409: bError('Not confirmed (yet)'),
      500: bError('The hotel refused the cancellation; nothing changed'),
    },
  }),
};

export function agencyHotelRoutes(deps: ApiDeps) {
  const bookingDeps = {
    ...workflowDeps(deps),
    supplier: deps.hotelSupplier,
    ...(deps.agencyContactPhone ? { contactPhone: deps.agencyContactPhone } : {}),
  };
  return agencyRouter()
    .openapi(routes.search, async (c) => {
      const answer = await agency.searchHotels(
        deps.hotelSupplier,
        partnerPricing(deps, c.get('partner')),
        c.req.valid('query'),
        new Date(),
        c.get('partner').id,
      );
      return searchAnswer(c, answer, (sold) => renderSearch(sold, c.get('partner').currency)) as never;
    })
    .openapi(routes.list, async (c) =>
      c.json(
        {
          results: (await agency.listBookings(deps.db, c.get('partner').id, c.req.valid('query'), c.get('partner').principal.ownBookingsOf)).map(renderBooking),
        },
        200,
      ),
    )
    .openapi(routes.hotel, async (c) => c.json(renderHotel(await agency.hotelDetail(deps.hotelSupplier, c.req.valid('param').hotel_id)), 200))
    .openapi(routes.create, async (c) => {
      const h = c.req.valid('header');
      // The booking row comes before its workflow: refuse before writing it while a part is down.
      deps.health.require(PARTS);
      const out = await agency.createBooking(
        bookingDeps,
        c.get('partner'),
        c.req.valid('json'),
        c.get('partner').currency,
        h['idempotency-key'],
        scenarioOf(deps, h),
      );
      return out.done ? c.json(renderBooking(out.booking), 201) : c.json(renderBooking(out.booking), 202);
    })
    .openapi(routes.cancel, async (c) => {
      const rawId = c.req.valid('param').booking_id;
      const out = await agency.cancelBooking(bookingDeps, c.get('partner'), rawId);
      // The id as the caller wrote it, as before.
      const answer = { booking_id: rawId, refund_amount: toNumber(out.refundMinor, out.currency), currency: out.currency };
      return out.done ? c.json({ ...answer, status: 'cancelled' as const }, 200) : c.json({ ...answer, status: 'cancelling' as const }, 202);
    });
}
