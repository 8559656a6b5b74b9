import { createRoute, z } from '@hono/zod-openapi';
import { parseAmount } from '../../domain/money';
import { parsePage } from '../../domain/pagination';
import { getTour, listTours, searchOptions } from '../../domain/tours/catalog';
import * as tours from '../../domain/tours/service';
import { workflowDeps, type ApiDeps } from '../deps';
import { created, ok, partnerRouter } from './env';
import { Traveler } from './flights.routes';
import { amountQuery, bodyId, month, queryInt, text } from '../vocabulary';
import { commonErrors, Decimal, Id, json, jsonBody, page, PageQuery, partnerOperations, TravelOrder } from './schemas';

const IntId = bodyId();

const TourSummary = z
  .object({
    id: z.number().int(),
    code: z.string(),
    title: z.string(),
    destination_city: z.string(),
    destination_country: z.string(),
    category: z.string(),
    duration_days: z.number().int(),
    price_from: Decimal.nullable(),
    currency: z.string(),
    next_departure: z.string().nullable(),
  })
  .openapi('TourSummary');

const Departure = z.object({
  id: z.number().int(),
  code: z.string(),
  start_date: z.string(),
  seats_left: z.number().int(),
  capacity: z.number().int(),
  prices: z.object({ ADT: Decimal, CHD: Decimal, INF: Decimal }),
  currency: z.string(),
});

const TourDetail = TourSummary.extend({
  description: z.string(),
  itinerary: z.array(z.object({ day: z.number().int(), title: z.string(), description: z.string() })),
  includes: z.array(z.string()),
  departures: z.array(Departure),
}).openapi('Tour');

const Prebook = z
  .object({
    prebook_id: z.number().int(),
    status: z.string(),
    tour_id: z.number().int(),
    tour_title: z.string(),
    departure_id: z.number().int(),
    start_date: z.string(),
    seats: z.number().int(),
    passengers: z.array(z.record(z.string(), z.unknown())),
    total_price: Decimal,
    currency: z.string(),
    expires_at: z.string(),
    order_id: z.number().int().nullable(),
    confirmation_number: z.string().nullable(),
  })
  .openapi('TourPrebook');

const ListQuery = PageQuery.extend({
  destination: text(100, { blank: true }).optional().openapi({ description: 'City name (part) or ISO country code' }),
  category: text(40, { blank: true }).optional(),
  month: month().optional().openapi({ description: 'YYYY-MM: tours departing that month' }),
  min_duration: queryInt(0, 999).optional(),
  max_duration: queryInt(0, 999).optional(),
  min_price: amountQuery().optional().openapi({ description: 'Adult price, decimal' }),
  max_price: amountQuery().optional(),
});

const tags = ['Tours'];
const { get, post } = partnerOperations(tags);

const routes = {
  list: createRoute({
    ...get('/tours/', 'Tours with upcoming departures'),
    request: { query: ListQuery },
    responses: { 200: json(page(TourSummary), 'A page of tours'), ...commonErrors },
  }),
  options: createRoute({
    ...get('/tours/search-options/', 'Values of the list filters'),
    responses: {
      200: json(
        z.object({
          destinations: z.array(z.object({ city: z.string(), country: z.string() })),
          categories: z.array(z.string()),
          months: z.array(z.string()),
          duration: z.object({ min: z.number(), max: z.number() }),
          price: z.object({ min: Decimal, max: Decimal, currency: z.string() }),
        }),
        'Filter values',
      ),
      401: commonErrors[401],
    },
  }),
  detail: createRoute({
    ...get('/tours/{id}/', 'Tour details: itinerary, departures, seats left and prices per passenger type'),
    request: { params: Id('id') },
    responses: { 200: json(TourDetail, 'The tour'), ...commonErrors },
  }),
  prebook: createRoute({
    ...post('/tours/prebook/', 'Hold seats on a departure for named passengers'),
    request: { body: jsonBody(z.object({ tour_id: IntId, departure_id: IntId, passengers: z.array(Traveler).min(1).max(20) }).openapi('TourPrebookRequest')) },
    responses: { 200: json(Prebook, 'The hold (expires_at)'), ...commonErrors },
  }),
  finalize: createRoute({
    ...post('/tours/finalize/', 'Turn a prebook into a travel order to pay'),
    request: { body: jsonBody(z.object({ prebook_id: IntId })) },
    responses: {
      201: json(TravelOrder.extend({ prebook_id: z.number().int(), hold_expires_at: z.string() }), 'The pending travel order'),
      ...commonErrors,
    },
  }),
};

export function tourRoutes(deps: ApiDeps) {
  const tourDeps = { ...workflowDeps(deps), prebookTtlMs: deps.holds.tourPrebookMs };
  return partnerRouter()
    .openapi(routes.list, async (c) => {
      const q = c.req.valid('query');
      const data = await listTours(
        deps.db,
        {
          destination: q.destination || undefined,
          category: q.category || undefined,
          month: q.month,
          min_duration: q.min_duration,
          max_duration: q.max_duration,
          min_price: q.min_price === undefined ? undefined : parseAmount('min_price', q.min_price, { allowZero: true }),
          max_price: q.max_price === undefined ? undefined : parseAmount('max_price', q.max_price, { allowZero: true }),
          page: parsePage(q.page),
        },
        c.req.url,
        deps.currency,
      );
      return ok(c, data);
    })
    .openapi(routes.options, async (c) => ok(c, await searchOptions(deps.db, deps.currency)))
    .openapi(routes.detail, async (c) => ok(c, await getTour(deps.db, Number(c.req.valid('param').id), deps.currency)))
    .openapi(routes.prebook, async (c) => ok(c, await tours.prebook(tourDeps, c.get('partner'), c.req.valid('json'), deps.currency)))
    .openapi(routes.finalize, async (c) => created(c, await tours.finalize(deps.db, c.get('partner'), c.req.valid('json').prebook_id)));
}
