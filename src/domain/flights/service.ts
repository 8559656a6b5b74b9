import type { Client } from '@temporalio/client';
import type { Db } from '../../db/client';
import { supplierRead } from '../supplier-reads';
import type { Airport, Cabin, FlightSupplier, Offer, PriceLine, Traveler } from '../../suppliers/flights';
import type { ChosenService } from '../../suppliers/flight-after-sale';
import { memoizePerObject } from '../../platform/memoize-per-object';
import { withScenario } from '../../sandbox/context';
import { pricerFor, type Pricer, type PricingDeps } from '../money/pricing';
import type { Markup } from '../money/markup';
import { soldOnce, type Sold } from '../search/derived';
import { findFlights, withinSearch } from '../search/suppliers';
import { markupFor } from '../money/markup-rules';
import { fixedUntil, heldPrice, openCode, sealCode } from '../offer-codes';
import type { SupplierPrice } from '../money/supplier-price';
import { bookFlightWorkflowId, offlineRefundWorkflowId, refundWorkflowId, type RefundFlightInput } from '../../../workflows/flight.types';
import { DomainError, validation, workflowAnswer } from '../errors';
import type { OrderRow } from '../orders';
import type { Partner } from '../partners';
import type { WorkflowOutcomes } from '../../temporal/outcomes';
import { awaitWorkflow, bookingAttributes, startOrJoin, inProcessOutcome } from '../../temporal/workflows';
import { flightBookingOfOrder, flightOrderOf, newFlightBooking, requestOfflineRefund, type FlightBookingRow } from './bookings';
import { giveMoneyBack } from '../money-back';
import type { MoneyBackOutcome } from '../refund-terms';
import { termsForRefund } from './refunds';
import { validateTravelers } from './travelers';

export interface FlightDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  waitMs: number;
  /** What this process's own worker tells of the runs it closes (npm start; src/temporal/outcomes.ts). */
  outcomes?: WorkflowOutcomes;
  /** The airline new bookings are made with. */
  supplier: FlightSupplier;
  /** The airline a booking was made with. */
  supplierOf(name: string): FlightSupplier;
  pricing: PricingDeps;
}

export const CABINS = ['economy', 'premium_economy', 'business', 'first'] as const;
export const TRIP_TYPES = ['one_way', 'round_trip'] as const;
export const MAX_SEATS = 9;

export interface FlightSearchInput {
  origin: string;
  destination: string;
  departure_date_time: string;
  return_date_time?: string;
  adult_count: number;
  child_count: number;
  infant_count: number;
  cabin_type: Cabin;
  air_trip_type: (typeof TRIP_TYPES)[number];
  limit: number;
}

const dayOf = (iso: string) => iso.slice(0, 10);

/** An offer at the partner's price: its amounts in the wallet's currency. */
export interface SellOffer {
  offer: Offer;
  /** The partner's `fare_source_code`: the offer with the price shown, sealed. */
  code: string;
  priceMinor: number;
  breakdown: Array<Pick<PriceLine, 'passenger_type' | 'count'> & { baseMinor: number; taxMinor: number }>;
}

/** The offers found, cheapest first, up to the limit; `count` is how many the airline offered. */
export interface FlightOffers {
  searchId: string;
  count: number;
  offers: SellOffer[];
}

/** The markup of a flight sale to a partner made `now` (src/domain/money/markup-rules.ts): resolved once per request. */
export const flightMarkup = (pricing: PricingDeps, partnerId: number, supplier: string, now: Date) =>
  markupFor(pricing, { service: 'flights', partnerId, supplier, now });

/**
 * An offer's margin as each passenger's base fare shows it: an equal share per seat, down to
 * the minor unit (what is left of it, under one minor unit per passenger, is in the total only).
 */
function perPassenger(marginMinor: number, lines: PriceLine[]): number {
  const passengers = lines.reduce((n, l) => n + l.count, 0);
  return passengers === 0 ? 0 : Math.floor(marginMinor / passengers);
}

/** Each airport list by code, made once per list: the search layer hands out the same list while it keeps it. */
const airportIndex = memoizePerObject((airports: readonly Airport[]) => new Map(airports.map((a) => [a.code, a])));

/** POST /api/flights/search_flights/: validated here, priced by the airline, cheapest first; its airports and its search within one deadline. */
export const searchFlights = (
  supplier: FlightSupplier,
  pricing: PricingDeps,
  input: FlightSearchInput,
  now: Date,
  partnerId: number,
): Promise<Sold<FlightOffers>> => withinSearch(supplier, () => searchAndSell(supplier, pricing, input, now, partnerId));

async function searchAndSell(
  supplier: FlightSupplier,
  pricing: PricingDeps,
  input: FlightSearchInput,
  now: Date,
  partnerId: number,
): Promise<Sold<FlightOffers>> {
  const known = airportIndex(await supplier.airports());
  if (!known.has(input.origin)) throw validation('origin', `unknown airport ${input.origin}`);
  if (!known.has(input.destination)) throw validation('destination', `unknown airport ${input.destination}`);
  if (known.get(input.origin)!.city_code === known.get(input.destination)!.city_code) throw validation('destination', 'must be another city than origin');
  const today = now.toISOString().slice(0, 10);
  if (dayOf(input.departure_date_time) < today) throw validation('departure_date_time', `must not be in the past (today is ${today})`);
  if (input.air_trip_type === 'round_trip') {
    if (!input.return_date_time) throw validation('return_date_time', 'is required for a round_trip');
    if (Date.parse(input.return_date_time) <= Date.parse(input.departure_date_time)) throw validation('return_date_time', 'must be after departure_date_time');
  } else if (input.return_date_time) {
    throw validation('return_date_time', 'is only for a round_trip');
  }
  const seats = input.adult_count + input.child_count;
  if (seats < 1 || seats > MAX_SEATS) throw validation('adult_count', `adults and children together take 1 to ${MAX_SEATS} seats`);
  if (input.infant_count > input.adult_count) throw validation('infant_count', 'at most one infant per adult');

  const found = await supplierRead('origin', () =>
    findFlights(supplier, {
      origin: input.origin,
      destination: input.destination,
      departure_date: dayOf(input.departure_date_time),
      return_date: input.return_date_time ? dayOf(input.return_date_time) : undefined,
      adults: input.adult_count,
      children: input.child_count,
      infants: input.infant_count,
      cabin: input.cabin_type,
    }),
  );
  // Priced once per answer, limit and pricing (src/domain/search/derived.ts).
  const markup = await flightMarkup(pricing, partnerId, supplier.name, now);
  return soldOnce(
    pricing,
    found,
    (answer) => answer.offers.map((o) => o.total),
    markup,
    `${supplier.name}:${input.limit}`,
    now,
    (answer, pricer) => sellOffers(answer, pricing, pricer, markup, input.limit),
  );
}

/** The offers found at the partner's prices, cheapest first, up to `limit`, each with its sealed code. */
function sellOffers(found: { search_id: string; offers: Offer[] }, pricing: PricingDeps, pricer: Pricer, markup: Markup, limit: number): FlightOffers {
  const priced = found.offers
    .map((offer) => ({ offer, ...markup.price(pricer.minor(offer.total)) }))
    .map(({ offer, sellMinor, marginMinor }) => ({ offer, priceMinor: sellMinor, marginMinor }))
    .sort((a, b) => a.priceMinor - b.priceMinor);
  const offers = priced.slice(0, limit).map(({ offer, priceMinor, marginMinor }): SellOffer => ({
    offer,
    code: sealCode(pricing, {
      id: offer.offer_id,
      supplier: offer.total,
      price: priceMinor,
      rate: pricer.rateOf(offer.total.currency),
      until: null,
    }),
    priceMinor,
    breakdown: offer.price_breakdown.map((p) => ({
      passenger_type: p.passenger_type,
      count: p.count,
      baseMinor: pricer.minor({ amount_minor: p.base_minor, currency: offer.total.currency }) + perPassenger(marginMinor, offer.price_breakdown),
      taxMinor: pricer.minor({ amount_minor: p.tax_minor, currency: offer.total.currency }),
    })),
  }));
  return { searchId: found.search_id, count: priced.length, offers };
}

/** An offer priced again, at the partner's price; `previousMinor` is the price it was found at (the current one when the supplier cannot tell). */
export interface Revalidation {
  isValid: boolean;
  fareSourceCode: string;
  priceMinor: number;
  previousMinor: number;
  seatsLeft: number | null;
}

/** POST /api/flights/revalidate_flight/. */
export async function revalidate(supplier: FlightSupplier, pricing: PricingDeps, partnerId: number, code: string, scenario?: string): Promise<Revalidation> {
  const shown = openCode(pricing, code, 'fare_source_code');
  const offer = await supplierRead('fare_source_code', () => withScenario(scenario, () => supplier.price(shown.id)));
  const now = new Date();
  const pricer = await pricerFor(pricing, [offer.total, offer.searched_total], now);
  const markup = await flightMarkup(pricing, partnerId, supplier.name, now);
  const priceMinor = markup.sell(pricer.minor(offer.total));
  const previousMinor = shown.priced?.price ?? (offer.searched_total ? markup.sell(pricer.minor(offer.searched_total)) : priceMinor);
  return {
    isValid: offer.available,
    // The price is fixed here: a booking with this code pays it while the airline's offer holds unchanged.
    fareSourceCode: sealCode(pricing, {
      id: offer.offer_id,
      supplier: offer.total,
      price: priceMinor,
      rate: pricer.rateOf(offer.total.currency),
      until: fixedUntil(offer.expires_at, new Date()),
    }),
    priceMinor,
    previousMinor,
    seatsLeft: offer.seats_left,
  };
}

/** The fare's conditions at the partner's prices: a penalty the airline does not state is none. */
export interface FareRules {
  fareFamily: string;
  refundable: boolean;
  refundPenaltyMinor: number;
  changePenaltyMinor: number;
  rules: Array<{ category: string; allowed: boolean; penaltyMinor: number; text: string }>;
}

/** POST /api/flights/air_rules/. */
export async function fareRules(supplier: FlightSupplier, pricing: PricingDeps, code: string): Promise<FareRules> {
  const { id } = openCode(pricing, code, 'fare_source_code');
  const c = await supplierRead('fare_source_code', () => supplier.conditions(id));
  const pricer = await pricerFor(pricing, [c.refund_before_departure.penalty, c.change_before_departure.penalty, ...c.rules.map((r) => r.penalty)], new Date());
  const minor = (m: { amount_minor: number; currency: string } | null) => (m ? pricer.minor(m) : 0);
  return {
    fareFamily: c.fare_family,
    refundable: c.refund_before_departure.allowed,
    refundPenaltyMinor: minor(c.refund_before_departure.penalty),
    changePenaltyMinor: minor(c.change_before_departure.penalty),
    rules: c.rules.map((r) => ({ category: r.category, allowed: r.allowed, penaltyMinor: minor(r.penalty), text: r.text })),
  };
}

export async function baggage(supplier: FlightSupplier, pricing: PricingDeps, code: string) {
  const { id } = openCode(pricing, code, 'fare_source_code');
  return supplierRead('fare_source_code', () => supplier.baggage(id));
}

/**
 * POST /api/flights/air_booking/: the fare is re-confirmed (a read), the travellers are
 * checked against it, then the booking workflow books the PNR and creates the order.
 */
export async function bookFlight(
  deps: FlightDeps,
  partner: Partner,
  input: {
    fare_source_code: string;
    traveler_info: { contact: { phone_number: string; email: string }; air_travelers: Traveler[] };
    /** Paid seats and bags from the fare's seat map and services, booked with it. */
    services?: ChosenService[] | undefined;
  },
  pricing: PricingDeps,
  scenario?: string,
): Promise<{ order: OrderRow; bookingId: number; pnr: string | null; ticketTimeLimit: Date }> {
  const shown = openCode(pricing, input.fare_source_code, 'fare_source_code');
  const fare = await supplierRead('fare_source_code', () => deps.supplier.price(shown.id));
  if (!fare.available) throw validation('fare_source_code', 'this fare is no longer available; search again');
  // The price a revalidation fixed, while the airline's offer holds unchanged; else today's
  // (refused here, before anything is booked, when the fare's currency cannot be priced).
  const held = heldPrice(shown.priced, new Date(), fare.total);
  const fixed: SupplierPrice | null = held ? { amount: held.supplier, rate: held.rate } : null;
  if (!held) await pricerFor(pricing, [fare.total], new Date());
  const departure = fare.legs[0]?.segments[0]?.departure;
  if (!departure) throw validation('fare_source_code', 'the fare has no itinerary');
  validateTravelers(input.traveler_info.air_travelers, fare.passengers, dayOf(departure), { passportRequired: fare.identity_documents_required });

  const booking = await newFlightBooking(deps.db, {
    partnerId: partner.id,
    fareSourceCode: shown.id,
    departureAt: new Date(departure),
    travelers: input.traveler_info.air_travelers,
    contact: input.traveler_info.contact,
    currency: pricing.currency,
    supplier: deps.supplier.name,
    fixed,
    services: input.services ?? [],
  });
  const workflowId = bookFlightWorkflowId(booking.id);
  const started = await startOrJoin(deps.temporal, 'bookFlight', {
    workflowId,
    taskQueue: deps.taskQueue,
    args: [{ bookingId: booking.id, clientReference: workflowId, ...(scenario ? { scenario } : {}) }],
    typedSearchAttributes: bookingAttributes({ partnerId: partner.id, service: 'flight', stage: 'holding' }),
  });
  const booked = await awaitWorkflow(started.handle, deps.waitMs, workflowAnswer('flightBooking', 'fare_source_code'), {
    inProcess: inProcessOutcome(deps.outcomes, started),
  });
  if (!booked)
    throw new DomainError('supplier_failed', `the airline has not answered yet; booking ${booking.id} is still being made, look for it in the order list`);
  const order = await flightOrderOf(deps.db, partner.id, booked.orderId);
  return { order, bookingId: booking.id, pnr: booked.pnr, ticketTimeLimit: new Date(booked.ticketTimeLimit) };
}

/** POST /api/flights/air_booking_data/. */
export async function bookingData(db: Db, partner: Partner, orderId: number): Promise<{ order: OrderRow; booking: FlightBookingRow | null }> {
  const order = await flightOrderOf(db, partner.id, orderId, 'read');
  return { order, booking: (await flightBookingOfOrder(db, order.id)) ?? null };
}

/** Where ticketing stands: issued (with the booking's tickets), or still under way with the airline (or stalled, for an operator). */
export type TicketingState =
  | { done: true; order: OrderRow; booking: FlightBookingRow }
  | { done: false; order: OrderRow; booking: FlightBookingRow | null; ticketing: 'in_progress' | 'stalled' };

/**
 * POST /api/flights/air_order_ticket/: the tickets of a paid order. While ticketing is
 * still under way the pay workflow keeps retrying the airline; this answers where it is.
 */
export async function orderTicket(deps: FlightDeps, partner: Partner, orderId: number): Promise<TicketingState> {
  const order = await flightOrderOf(deps.db, partner.id, orderId, 'read');
  const booking = await flightBookingOfOrder(deps.db, order.id);
  if (order.status === 'pending') throw validation('order_id', `order ${orderId} is not paid yet; pay it to issue the tickets`);
  if (order.status === 'processing') {
    const running = order.paymentWorkflowId ? (await deps.temporal.workflow.getHandle(order.paymentWorkflowId).describe()).status.name === 'RUNNING' : false;
    return { done: false, order, booking: booking ?? null, ticketing: running ? 'in_progress' : 'stalled' };
  }
  if (!booking?.tickets?.length) throw validation('order_id', `order ${orderId} is ${order.status} and has no tickets`);
  return { done: true, order, booking };
}

/** POST /api/flights/air_refund/: the refund workflow, awaited up to the bound. */
export async function refund(deps: FlightDeps, partner: Partner, input: { order_id: number; quote_id?: string }, scenario?: string): Promise<MoneyBackOutcome> {
  const terms = await termsForRefund(deps, partner.id, input.order_id, input.quote_id, new Date());
  const args: RefundFlightInput = {
    orderId: input.order_id,
    refundMinor: terms.refundMinor,
    penaltyMinor: terms.penaltyMinor,
    airlineQuote: terms.airlineQuote,
    ...(scenario ? { scenario } : {}),
  };
  return giveMoneyBack(deps, {
    workflowType: 'refundFlight',
    workflowId: refundWorkflowId(partner.id, input.order_id),
    args: [args],
    partnerId: partner.id,
    orderId: input.order_id,
    service: 'flight',
    refusal: workflowAnswer('flightRefund'),
  });
}

/** POST /api/flights/air_refund_offline/: the order waits for an operator (a workflow waiting for a signal). */
export async function refundOffline(deps: FlightDeps, partner: Partner, input: { order_id: number; reason: string }): Promise<OrderRow> {
  const order = await requestOfflineRefund(deps.db, partner.id, input.order_id, input.reason);
  await startOrJoin(deps.temporal, 'offlineFlightRefund', {
    workflowId: offlineRefundWorkflowId(order.id),
    taskQueue: deps.taskQueue,
    args: [{ orderId: order.id }],
    typedSearchAttributes: bookingAttributes({ partnerId: partner.id, orderId: order.id, service: 'flight', stage: 'waiting' }),
  });
  return order;
}
