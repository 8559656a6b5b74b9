import { createRoute, z } from '@hono/zod-openapi';
import { formatDecimal, parseAmount } from '../../domain/money/money';
import { getTour, listTours, searchOptions, type DepartureRow, type TourWithDepartures } from '../../domain/tours/catalog';
import type { PrebookView } from '../../domain/tours/prebooks';
import * as tours from '../../domain/tours/service';
import { partnerPricing, workflowDeps, type ApiDeps } from '../deps';
import type { Partner } from '../../domain/partners';
import { netAtLeast, netAtMost, type Markup } from '../../domain/money/markup';
import { ownMarkup } from '../../domain/money/markup-rules';
import { created, ok, partnerRouter } from './router';
import { Traveler } from './flights.routes';
import { amountQuery, bodyId, month, queryInt, text } from '../vocabulary';
import { commonErrors, Decimal, Id, json, jsonBody, partnerOperations, renderTravelOrder, TravelOrder } from './schemas';
import { page, PageQuery, parsePage, renderPage } from './paging';

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

function renderDeparture(d: DepartureRow, currency: string, markup: Markup): z.infer<typeof Departure> {
  return {
    id: d.id,
    code: d.code,
    start_date: d.startDate,
    seats_left: d.capacity - d.seatsTaken,
    capacity: d.capacity,
    prices: {
      ADT: formatDecimal(markup.sell(d.priceAdult), currency),
      CHD: formatDecimal(markup.sell(d.priceChild), currency),
      INF: formatDecimal(markup.sell(d.priceInfant), currency),
    },
    currency,
  };
}

function renderSummary({ tour: t, departures: upcoming }: TourWithDepartures, currency: string, markup: Markup): z.infer<typeof TourSummary> {
  const from = upcoming.length ? markup.sell(Math.min(...upcoming.map((d) => d.priceAdult))) : null;
  return {
    id: t.id,
    code: t.code,
    title: t.title,
    destination_city: t.destinationCity,
    destination_country: t.destinationCountry,
    category: t.category,
    duration_days: t.durationDays,
    price_from: from === null ? null : formatDecimal(from, currency),
    currency,
    next_departure: upcoming[0]?.startDate ?? null,
  };
}

function renderTour(t: TourWithDepartures, currency: string, markup: Markup): z.infer<typeof TourDetail> {
  return {
    ...renderSummary(t, currency, markup),
    description: t.tour.description,
    itinerary: t.tour.itinerary,
    includes: t.tour.includes,
    departures: t.departures.map((d) => renderDeparture(d, currency, markup)),
  };
}

function renderPrebook({ prebook: p, tour, departure }: PrebookView): z.infer<typeof Prebook> {
  return {
    prebook_id: p.id,
    status: p.status,
    tour_id: tour.id,
    tour_title: tour.title,
    departure_id: p.departureId,
    start_date: departure.startDate,
    seats: p.seats,
    passengers: p.passengers,
    total_price: formatDecimal(p.totalPrice, p.currency),
    currency: p.currency,
    expires_at: p.expiresAt.toISOString(),
    order_id: p.orderId,
    confirmation_number: p.confirmationNumber,
  };
}

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
  const markupOf = (partner: Partner) => ownMarkup(partnerPricing(deps, partner), 'tours', partner.id);
  return partnerRouter()
    .openapi(routes.list, async (c) => {
      const q = c.req.valid('query');
      // The price filters are on the prices shown (with the partner's markup); the catalogue keeps nets.
      const markup = await markupOf(c.get('partner'));
      const minPrice = q.min_price === undefined ? undefined : parseAmount('min_price', q.min_price, { allowZero: true });
      const maxPrice = q.max_price === undefined ? undefined : parseAmount('max_price', q.max_price, { allowZero: true });
      const found = await listTours(deps.db, {
        destination: q.destination || undefined,
        category: q.category || undefined,
        month: q.month,
        min_duration: q.min_duration,
        max_duration: q.max_duration,
        min_price: minPrice === undefined ? undefined : netAtLeast(markup, minPrice),
        max_price: maxPrice === undefined ? undefined : netAtMost(markup, maxPrice),
        page: parsePage(q.page),
      });
      return ok(
        c,
        renderPage(found, c.req.url, (t) => renderSummary(t, c.get('partner').currency, markup)),
      );
    })
    .openapi(routes.options, async (c) => {
      const { price, ...options } = await searchOptions(deps.db);
      const currency = c.get('partner').currency;
      const markup = await markupOf(c.get('partner'));
      return ok(c, {
        ...options,
        price: { min: formatDecimal(markup.sell(price.min), currency), max: formatDecimal(markup.sell(price.max), currency), currency },
      });
    })
    .openapi(routes.detail, async (c) =>
      ok(c, renderTour(await getTour(deps.db, Number(c.req.valid('param').id)), c.get('partner').currency, await markupOf(c.get('partner')))),
    )
    .openapi(routes.prebook, async (c) =>
      ok(c, renderPrebook(await tours.prebook(tourDeps, c.get('partner'), c.req.valid('json'), partnerPricing(deps, c.get('partner'))))),
    )
    .openapi(routes.finalize, async (c) => {
      const { order, prebook } = await tours.finalize(deps.db, c.get('partner'), c.req.valid('json').prebook_id);
      return created(c, { ...renderTravelOrder(order), prebook_id: prebook.id, hold_expires_at: prebook.expiresAt.toISOString() });
    });
}
