import { createRoute, z } from '@hono/zod-openapi';
import { quoteRefund } from '../../domain/flights/refunds';
import * as flights from '../../domain/flights/service';
import { workflowDeps, type ApiDeps } from '../deps';
import { created, doneOrUnderWay, ok, partnerRouter } from './env';
import {
  bodyId,
  calendarDate,
  calendarDateOrTime,
  country,
  email,
  nationalId,
  opaque,
  passportNumber,
  phone,
  sandboxScenario,
  scenarioOf,
  text,
} from '../vocabulary';
import { commonErrors, Decimal, errorResponse, json, jsonBody, partnerOperations, TravelOrder } from './schemas';

const FLIGHT_SCENARIOS = ['price_changed', 'supplier_reject', 'supplier_flaky', 'supplier_slow', 'refund_reject'] as const;

const Iata = z.string().regex(/^[A-Z]{3}$/, 'must be a 3-letter IATA airport code, e.g. "IKA"');
const Departure = calendarDateOrTime('travel');
const Id = bodyId();
const Country = country();
const FareCode = z.object({ fare_source_code: opaque(4000) });

const SearchBody = z
  .object({
    origin: Iata,
    destination: Iata,
    departure_date_time: Departure,
    return_date_time: Departure.optional().openapi({ description: 'Required for round_trip' }),
    adult_count: z.number().int().min(0).max(9).default(1),
    child_count: z.number().int().min(0).max(9).default(0),
    infant_count: z.number().int().min(0).max(9).default(0),
    cabin_type: z.enum(flights.CABINS, { error: `must be one of ${flights.CABINS.join(', ')}` }),
    air_trip_type: z.enum(flights.TRIP_TYPES, { error: `must be one of ${flights.TRIP_TYPES.join(', ')}` }),
    limit: z.number().int().min(1).max(100).default(50).openapi({ description: 'At most this many offers, cheapest first (extension)' }),
  })
  .openapi('FlightSearchRequest');

const Segment = z.object({
  flight_number: z.string(),
  airline: z.string(),
  origin: z.string(),
  destination: z.string(),
  departure: z.string(),
  arrival: z.string(),
  cabin: z.string(),
  booking_class: z.string(),
});
const Legs = z.array(z.object({ segments: z.array(Segment) }));

const SearchResult = z
  .object({
    search_id: z.string(),
    count: z.number().int(),
    results: z.array(
      z.object({
        fare_source_code: z.string(),
        total_price: Decimal,
        currency: z.string(),
        refundable: z.boolean(),
        fare_family: z.string(),
        seats_left: z.number().int(),
        legs: Legs,
        price_breakdown: z.array(z.object({ passenger_type: z.enum(['ADT', 'CHD', 'INF']), count: z.number().int(), base: Decimal, tax: Decimal })),
      }),
    ),
  })
  .openapi('FlightSearchResult');

export const Traveler = z.object({
  first_name: text(100),
  last_name: text(100),
  birth_date: calendarDate('birth'),
  gender: z.enum(['male', 'female'], { error: 'must be male or female' }),
  passenger_type: z.enum(['ADT', 'CHD', 'INF'], { error: 'must be ADT, CHD or INF' }),
  nationality: Country,
  national_id: nationalId().optional().openapi({ description: 'Iranian travellers: 10 digits with a valid check digit' }),
  passport_number: passportNumber().optional(),
  passport_expiry_date: calendarDate('document').optional().openapi({ description: 'Foreign travellers: valid 6 months past departure' }),
});

const BookingBody = FareCode.extend({
  traveler_info: z.object({
    contact: z.object({ phone_number: phone(), email: email() }),
    air_travelers: z.array(Traveler).min(1).max(18),
  }),
}).openapi('FlightBookingRequest');

const FlightBooking = z
  .object({
    booking_id: z.number().int(),
    pnr: z.string().nullable(),
    status: z.string(),
    ticket_time_limit: z.string().nullable(),
    cabin: z.string().nullable(),
    fare_family: z.string().nullable(),
    refundable: z.boolean().nullable(),
    total_price: Decimal.nullable(),
    currency: z.string(),
    legs: Legs,
    passengers: z.array(
      z.object({
        first_name: z.string(),
        last_name: z.string(),
        passenger_type: z.string(),
        birth_date: z.string(),
        gender: z.string(),
        nationality: z.string(),
        ticket_number: z.string().nullable(),
      }),
    ),
    contact: z.object({ phone_number: z.string(), email: z.string() }),
  })
  .openapi('FlightBooking');

const Tickets = z
  .object({
    order_id: z.number().int(),
    status: z.string(),
    pnr: z.string().nullable(),
    ticketing: z.enum(['issued', 'in_progress', 'stalled']),
    payment_id: z.string().nullable(),
    tickets: z.array(z.object({ first_name: z.string(), last_name: z.string(), passenger_type: z.string(), ticket_number: z.string().nullable() })),
  })
  .openapi('FlightTickets');

const OrderIdBody = z.object({ order_id: Id });
const tags = ['Flights'];
const { post } = partnerOperations(tags);
const scenarioHeader = sandboxScenario(FLIGHT_SCENARIOS);

const routes = {
  search: createRoute({
    ...post('/flights/search_flights/', 'Search flights, cheapest first'),
    request: { body: jsonBody(SearchBody) },
    responses: { 200: json(SearchResult, 'Offers'), ...commonErrors },
  }),
  revalidate: createRoute({
    ...post('/flights/revalidate_flight/', 'Re-confirm availability and price of an offer'),
    request: { body: jsonBody(FareCode), headers: scenarioHeader },
    responses: {
      200: json(
        z.object({
          is_valid: z.boolean(),
          fare_source_code: z.string(),
          total_price: Decimal,
          previous_price: Decimal,
          price_changed: z.boolean(),
          currency: z.string(),
          seats_left: z.number().int(),
        }),
        'The offer now; book with the fare_source_code returned here',
      ),
      ...commonErrors,
    },
  }),
  rules: createRoute({
    ...post('/flights/air_rules/', 'Fare rules'),
    request: { body: jsonBody(FareCode) },
    responses: {
      200: json(
        z.object({
          fare_family: z.string(),
          refundable: z.boolean(),
          refund_penalty: Decimal,
          change_penalty: Decimal,
          currency: z.string(),
          rules: z.array(z.object({ category: z.string(), allowed: z.boolean(), penalty: Decimal, text: z.string() })),
        }),
        'Rules',
      ),
      ...commonErrors,
    },
  }),
  baggage: createRoute({
    ...post('/flights/air_baggages/', 'Baggage allowance'),
    request: { body: jsonBody(FareCode) },
    responses: {
      200: json(
        z.object({
          baggage: z.array(
            z.object({
              passenger_type: z.string(),
              checked: z.object({ pieces: z.number(), weight_kg: z.number() }),
              cabin: z.object({ pieces: z.number(), weight_kg: z.number() }),
            }),
          ),
        }),
        'Allowance per passenger type',
      ),
      ...commonErrors,
    },
  }),
  book: createRoute({
    ...post('/flights/air_booking/', 'Book: creates the PNR and the travel order'),
    request: { body: jsonBody(BookingBody) },
    responses: {
      201: json(TravelOrder.extend({ booking_id: z.number().int(), pnr: z.string(), ticket_time_limit: z.string() }), 'The pending travel order'),
      ...commonErrors,
    },
  }),
  ticket: createRoute({
    ...post('/flights/air_order_ticket/', 'Ticket numbers of a paid order'),
    request: { body: jsonBody(OrderIdBody) },
    responses: { 200: json(Tickets, 'Issued'), 202: json(Tickets, 'Ticketing still under way'), ...commonErrors },
  }),
  bookingData: createRoute({
    ...post('/flights/air_booking_data/', 'PNR, status and passengers with ticket numbers'),
    request: { body: jsonBody(OrderIdBody) },
    responses: { 200: json(z.object({ order: TravelOrder, booking: FlightBooking.nullable() }), 'Order and booking'), ...commonErrors },
  }),
  refundDisplay: createRoute({
    ...post('/flights/air_refund_display/', 'Refundable amount per the fare rules, as a quote'),
    request: { body: jsonBody(OrderIdBody) },
    responses: {
      200: json(
        z.object({
          order_id: z.number().int(),
          refundable_amount: Decimal,
          penalty: Decimal,
          currency: z.string(),
          quote_id: z.string(),
          expires_at: z.string(),
        }),
        'Quote',
      ),
      ...commonErrors,
    },
  }),
  refund: createRoute({
    ...post('/flights/air_refund/', 'Online refund: the airline refunds, then the wallet is credited'),
    request: { body: jsonBody(OrderIdBody.extend({ quote_id: opaque(100).optional() })), headers: scenarioHeader },
    responses: {
      200: json(
        z.object({
          order_id: z.number().int(),
          status: z.string(),
          refund_amount: Decimal.optional(),
          penalty: Decimal.optional(),
          currency: z.string().optional(),
          ledger_id: z.number().int().nullable().optional(),
          refund_id: z.string().optional(),
        }),
        'Refunded',
      ),
      202: json(z.object({ order_id: z.number().int(), status: z.string(), refund_id: z.string() }), 'Still refunding with the airline'),
      ...commonErrors,
      502: errorResponse('The airline refused the refund; nothing changed'),
    },
  }),
  refundOffline: createRoute({
    ...post('/flights/air_refund_offline/', 'Ask for a manual refund; an operator decides'),
    request: { body: jsonBody(OrderIdBody.extend({ reason: text(1000) })) },
    responses: { 200: json(z.object({ order_id: z.number().int(), status: z.string(), reason: z.string() }), 'Requested'), ...commonErrors },
  }),
};

export function flightRoutes(deps: ApiDeps) {
  const flightDeps = { ...workflowDeps(deps), supplier: deps.flightSupplier };
  const sup = deps.flightSupplier;
  return partnerRouter()
    .openapi(routes.search, async (c) => ok(c, await flights.searchFlights(sup, c.req.valid('json'), deps.currency, new Date())))
    .openapi(routes.revalidate, async (c) => {
      const data = await flights.revalidate(sup, c.req.valid('json').fare_source_code, deps.currency, scenarioOf(deps, c.req.valid('header')));
      return ok(c, data);
    })
    .openapi(routes.rules, async (c) => ok(c, await flights.fareRules(sup, c.req.valid('json').fare_source_code, deps.currency)))
    .openapi(routes.baggage, async (c) => ok(c, await flights.baggage(sup, c.req.valid('json').fare_source_code)))
    .openapi(routes.book, async (c) => created(c, await flights.bookFlight(flightDeps, c.get('partner'), c.req.valid('json'), deps.currency)))
    .openapi(routes.ticket, async (c) => {
      const out = await flights.orderTicket(flightDeps, c.get('partner'), c.req.valid('json').order_id);
      return doneOrUnderWay(c, out);
    })
    .openapi(routes.bookingData, async (c) => ok(c, await flights.bookingData(deps.db, c.get('partner'), c.req.valid('json').order_id)))
    .openapi(routes.refundDisplay, async (c) => ok(c, await quoteRefund(deps.db, c.get('partner').id, c.req.valid('json').order_id, new Date())))
    .openapi(routes.refund, async (c) => {
      const out = await flights.refund(flightDeps, c.get('partner'), c.req.valid('json'), scenarioOf(deps, c.req.valid('header')));
      return doneOrUnderWay(c, out);
    })
    .openapi(routes.refundOffline, async (c) => ok(c, await flights.refundOffline(flightDeps, c.get('partner'), c.req.valid('json'))));
}
