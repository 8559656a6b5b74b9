import { createRoute, z } from '@hono/zod-openapi';
import type { FlightBookingRow } from '../../domain/flights/bookings';
import { quoteRefund } from '../../domain/flights/refunds';
import * as flights from '../../domain/flights/service';
import { formatDecimal } from '../../domain/money/money';
import type { BookedService } from '../../suppliers/flight-after-sale';
import type { Leg, Traveler as SupplierTraveler } from '../../suppliers/flights';
import { partnerPricing, workflowDeps, type ApiDeps } from '../deps';
import type { Partner } from '../../domain/partners';
import { created, doneOrUnderWay, ok, partnerRouter } from './router';
import { bodyId, calendarDate, calendarDateOrTime, country, email, nationalId, opaque, passportNumber, phone, text } from '../vocabulary';
import { sandboxScenario, scenarioOf } from '../sandbox-scenario';
import { searchAnswer } from '../search-answer';
import { commonErrors, Decimal, errorResponse, json, jsonBody, partnerOperations, renderMoneyBack, renderTravelOrder, Segment, TravelOrder } from './schemas';

export const Iata = z.string().regex(/^[A-Z]{3}$/, 'must be a 3-letter IATA airport code, e.g. "IKA"');
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

export const Legs = z.array(z.object({ segments: z.array(Segment) }));

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
        seats_left: z.number().int().nullable().openapi({ description: 'Seats the airline still sells at this fare; null when it does not say' }),
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
  services: z
    .array(z.object({ service_id: opaque(200), quantity: z.number().int().min(1).max(9) }))
    .max(40)
    .optional()
    .openapi({
      description:
        "Paid seats (seat_map) and bags (air_services) to book with the flight (extension). The order's price is the airline's for the whole, with the markup. On Duffel, which books seats and bags only with an order paid as it is made, the booking is made at the airline when it is paid: pnr stays null until then, and ticket_time_limit is when the fare's offer expires",
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
    services: z
      .array(
        z.object({
          type: z.enum(['seat', 'baggage']),
          traveler_index: z.number().int(),
          segments: z.array(z.tuple([z.number().int(), z.number().int()])),
          quantity: z.number().int(),
          designator: z.string().optional(),
        }),
      )
      .openapi({ description: 'Seats and bags booked on it (extension)' }),
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

export const renderLeg = (leg: Leg): z.infer<typeof Legs>[number] => ({
  segments: leg.segments.map((s) => ({
    flight_number: s.flight_number,
    airline: s.airline,
    origin: s.origin,
    destination: s.destination,
    departure: s.departure,
    arrival: s.arrival,
    cabin: s.cabin,
    booking_class: s.booking_class,
  })),
});

function renderOffers({ searchId, count, offers }: flights.FlightOffers, currency: string): z.infer<typeof SearchResult> {
  return {
    search_id: searchId,
    count,
    results: offers.map(({ offer: o, code, priceMinor, breakdown }) => ({
      fare_source_code: code,
      total_price: formatDecimal(priceMinor, currency),
      currency,
      refundable: o.refundable,
      fare_family: o.fare_family,
      seats_left: o.seats_left,
      legs: o.legs.map(renderLeg),
      price_breakdown: breakdown.map((p) => ({
        passenger_type: p.passenger_type,
        count: p.count,
        base: formatDecimal(p.baseMinor, currency),
        tax: formatDecimal(p.taxMinor, currency),
      })),
    })),
  };
}

function renderFlightBooking(b: FlightBookingRow): z.infer<typeof FlightBooking> {
  const tickets = new Map((b.tickets ?? []).map((t) => [t.traveler_index, t.ticket_number]));
  return {
    booking_id: b.id,
    pnr: b.pnr,
    status: b.status,
    ticket_time_limit: b.ticketTimeLimit?.toISOString() ?? null,
    cabin: b.cabin,
    fare_family: b.fareFamily,
    refundable: b.refundable,
    total_price: b.totalPrice === null ? null : formatDecimal(b.totalPrice, b.currency),
    currency: b.currency,
    legs: ((b.legs ?? []) as Leg[]).map(renderLeg),
    services: ((b.services ?? []) as Array<Partial<BookedService>>)
      .filter((x): x is BookedService => x.type === 'seat' || x.type === 'baggage')
      .map((x) => ({
        type: x.type,
        traveler_index: x.traveler_index,
        segments: x.segments,
        quantity: x.quantity,
        ...(x.designator ? { designator: x.designator } : {}),
      })),
    passengers: (b.travelers as unknown as SupplierTraveler[]).map((t, i) => ({
      first_name: t.first_name,
      last_name: t.last_name,
      passenger_type: t.passenger_type,
      birth_date: t.birth_date,
      gender: t.gender,
      nationality: t.nationality,
      ticket_number: tickets.get(i) ?? null,
    })),
    contact: b.contact,
  };
}

function renderTicketing(state: flights.TicketingState) {
  const { order, booking } = state;
  const head = { order_id: order.id, status: order.status, pnr: booking?.pnr ?? null, payment_id: order.paymentWorkflowId };
  if (!state.done) return { done: false as const, data: { ...head, ticketing: state.ticketing, tickets: [] } };
  return {
    done: true as const,
    data: {
      ...head,
      ticketing: 'issued' as const,
      tickets: renderFlightBooking(state.booking).passengers.map((p) => ({
        first_name: p.first_name,
        last_name: p.last_name,
        passenger_type: p.passenger_type,
        ticket_number: p.ticket_number,
      })),
    },
  };
}

const OrderIdBody = z.object({ order_id: Id });
const tags = ['Flights'];
const { post } = partnerOperations(tags);
const revalidateScenario = sandboxScenario('flightRevalidate');
const refundScenario = sandboxScenario('flightRefund');

const routes = {
  search: createRoute({
    ...post('/flights/search_flights/', 'Search flights, cheapest first'),
    request: { body: jsonBody(SearchBody) },
    responses: { 200: json(SearchResult, 'Offers'), ...commonErrors },
  }),
  revalidate: createRoute({
    ...post('/flights/revalidate_flight/', 'Re-confirm availability and price of an offer'),
    request: { body: jsonBody(FareCode), headers: revalidateScenario },
    responses: {
      200: json(
        z.object({
          is_valid: z.boolean(),
          fare_source_code: z.string(),
          total_price: Decimal,
          previous_price: Decimal,
          price_changed: z.boolean(),
          currency: z.string(),
          seats_left: z.number().int().nullable().openapi({ description: 'Seats the airline still sells at this fare; null when it does not say' }),
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
              checked: z.object({
                pieces: z.number(),
                weight_kg: z.number().nullable().openapi({ description: 'Per piece; null when the airline does not say' }),
              }),
              cabin: z.object({
                pieces: z.number(),
                weight_kg: z.number().nullable().openapi({ description: 'Per piece; null when the airline does not say' }),
              }),
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
    request: { body: jsonBody(BookingBody), headers: sandboxScenario('flightBooking') },
    responses: {
      201: json(
        TravelOrder.extend({
          booking_id: z.number().int(),
          pnr: z.string().nullable().openapi({
            description: 'The airline booking reference; null when the airline makes the booking only once it is paid (Duffel, with seats or bags chosen)',
          }),
          ticket_time_limit: z.string(),
        }),
        'The pending travel order',
      ),
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
    request: { body: jsonBody(OrderIdBody.extend({ quote_id: opaque(100).optional() })), headers: refundScenario },
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
  const flightDeps = { ...workflowDeps(deps), supplier: deps.flightSupplier, supplierOf: deps.flightSupplierOf, pricing: deps.pricing };
  const sup = deps.flightSupplier;
  const pricing = (c: { get(key: 'partner'): Partner }) => partnerPricing(deps, c.get('partner'));
  return partnerRouter()
    .openapi(routes.search, async (c) => {
      const answer = await flights.searchFlights(sup, pricing(c), c.req.valid('json'), new Date(), c.get('partner').id);
      return searchAnswer(c, answer, (sold) => ({ ok: true, data: renderOffers(sold, c.get('partner').currency) })) as never;
    })
    .openapi(routes.revalidate, async (c) => {
      const r = await flights.revalidate(sup, pricing(c), c.get('partner').id, c.req.valid('json').fare_source_code, scenarioOf(deps, c.req.valid('header')));
      const currency = c.get('partner').currency;
      return ok(c, {
        is_valid: r.isValid,
        fare_source_code: r.fareSourceCode,
        total_price: formatDecimal(r.priceMinor, currency),
        previous_price: formatDecimal(r.previousMinor, currency),
        price_changed: r.priceMinor !== r.previousMinor,
        currency,
        seats_left: r.seatsLeft,
      });
    })
    .openapi(routes.rules, async (c) => {
      const r = await flights.fareRules(sup, pricing(c), c.req.valid('json').fare_source_code);
      const currency = c.get('partner').currency;
      return ok(c, {
        fare_family: r.fareFamily,
        refundable: r.refundable,
        refund_penalty: formatDecimal(r.refundPenaltyMinor, currency),
        change_penalty: formatDecimal(r.changePenaltyMinor, currency),
        currency,
        rules: r.rules.map((x) => ({ category: x.category, allowed: x.allowed, penalty: formatDecimal(x.penaltyMinor, currency), text: x.text })),
      });
    })
    .openapi(routes.baggage, async (c) => ok(c, await flights.baggage(sup, pricing(c), c.req.valid('json').fare_source_code)))
    .openapi(routes.book, async (c) => {
      const booked = await flights.bookFlight(flightDeps, c.get('partner'), c.req.valid('json'), pricing(c), scenarioOf(deps, c.req.valid('header')));
      return created(c, {
        ...renderTravelOrder(booked.order),
        booking_id: booked.bookingId,
        pnr: booked.pnr,
        ticket_time_limit: booked.ticketTimeLimit.toISOString(),
      });
    })
    .openapi(routes.ticket, async (c) =>
      doneOrUnderWay(c, renderTicketing(await flights.orderTicket(flightDeps, c.get('partner'), c.req.valid('json').order_id))),
    )
    .openapi(routes.bookingData, async (c) => {
      const { order, booking } = await flights.bookingData(deps.db, c.get('partner'), c.req.valid('json').order_id);
      return ok(c, { order: renderTravelOrder(order), booking: booking ? renderFlightBooking(booking) : null });
    })
    .openapi(routes.refundDisplay, async (c) => {
      const q = await quoteRefund(flightDeps, c.get('partner').id, c.req.valid('json').order_id, new Date());
      const currency = q.order.currency;
      return ok(c, {
        order_id: q.order.id,
        refundable_amount: formatDecimal(q.refundMinor, currency),
        penalty: formatDecimal(q.penaltyMinor, currency),
        currency,
        quote_id: q.quoteId,
        expires_at: q.expiresAt.toISOString(),
      });
    })
    .openapi(routes.refund, async (c) => {
      const out = await flights.refund(flightDeps, c.get('partner'), c.req.valid('json'), scenarioOf(deps, c.req.valid('header')));
      return doneOrUnderWay(c, renderMoneyBack(out, { done: 'refunded', underWay: 'refunding', idField: 'refund_id' }));
    })
    .openapi(routes.refundOffline, async (c) => {
      const body = c.req.valid('json');
      const order = await flights.refundOffline(flightDeps, c.get('partner'), body);
      return ok(c, { order_id: order.id, status: 'refund_requested', reason: body.reason });
    });
}
