import type { Client } from '@temporalio/client';
import type { Db } from '../../db/client';
import { supplierRead } from '../supplier-reads';
import type { Cabin, FlightSupplier, Leg, Traveler } from '../../suppliers/flights';
import { bookFlightWorkflowId, FlightFailure, offlineRefundWorkflowId, refundWorkflowId, type RefundFlightInput } from '../../../workflows/flight.types';
import { DomainError, validation } from '../errors';
import { formatDecimal } from '../money';
import { renderTravelOrder } from '../orders';
import type { Partner } from '../partners';
import { awaitWorkflow, bookingAttributes, startOrJoin } from '../../temporal/workflows';
import { flightBookingOfOrder, flightOrderOf, newFlightBooking, requestOfflineRefund, type FlightBookingRow } from './bookings';
import { termsForRefund } from './refunds';
import { validateTravelers } from './travelers';

export interface FlightDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  waitMs: number;
  supplier: FlightSupplier;
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

/** POST /api/flights/search_flights/: validated here, priced by the airline, cheapest first. */
export async function searchFlights(supplier: FlightSupplier, input: FlightSearchInput, currency: string, now: Date) {
  const airports = await supplier.airports();
  const known = new Map(airports.map((a) => [a.code, a]));
  if (!known.has(input.origin)) throw validation('origin', `unknown airport ${input.origin}`);
  if (!known.has(input.destination)) throw validation('destination', `unknown airport ${input.destination}`);
  if (known.get(input.origin)!.city_id === known.get(input.destination)!.city_id) throw validation('destination', 'must be another city than origin');
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
    supplier.search({
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
  const offers = [...found.offers].sort((a, b) => a.total_price_minor - b.total_price_minor);
  return {
    search_id: found.search_id,
    count: offers.length,
    results: offers.slice(0, input.limit).map((o) => ({
      fare_source_code: o.fare_source_code,
      total_price: formatDecimal(o.total_price_minor, currency),
      currency,
      refundable: o.refundable,
      fare_family: o.fare_family,
      seats_left: o.seats_left,
      legs: o.legs.map(renderLeg),
      price_breakdown: o.price_breakdown.map((p) => ({
        passenger_type: p.passenger_type,
        count: p.count,
        base: formatDecimal(p.base_minor, currency),
        tax: formatDecimal(p.tax_minor, currency),
      })),
    })),
  };
}

const renderLeg = (leg: Leg) => ({
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

export async function revalidate(supplier: FlightSupplier, code: string, currency: string, scenario?: string) {
  const r = await supplierRead('fare_source_code', () => supplier.revalidate(code, scenario));
  return {
    is_valid: r.is_valid,
    fare_source_code: r.fare_source_code,
    total_price: formatDecimal(r.total_price_minor, currency),
    previous_price: formatDecimal(r.original_price_minor, currency),
    price_changed: r.price_changed,
    currency,
    seats_left: r.seats_left,
  };
}

export async function fareRules(supplier: FlightSupplier, code: string, currency: string) {
  const r = await supplierRead('fare_source_code', () => supplier.rules(code));
  return {
    fare_family: r.fare_family,
    refundable: r.refundable,
    refund_penalty: formatDecimal(r.refund_penalty_minor, currency),
    change_penalty: formatDecimal(r.change_penalty_minor, currency),
    currency,
    rules: r.rules.map((x) => ({ category: x.category, allowed: x.allowed, penalty: formatDecimal(x.penalty_minor, currency), text: x.text })),
  };
}

export async function baggage(supplier: FlightSupplier, code: string) {
  return supplierRead('fare_source_code', () => supplier.baggage(code));
}

/**
 * POST /api/flights/air_booking/: the fare is re-confirmed (a read), the travellers are
 * checked against it, then the booking workflow books the PNR and creates the order.
 */
export async function bookFlight(
  deps: FlightDeps,
  partner: Partner,
  input: { fare_source_code: string; traveler_info: { contact: { phone_number: string; email: string }; air_travelers: Traveler[] } },
  currency: string,
) {
  const fare = await supplierRead('fare_source_code', () => deps.supplier.revalidate(input.fare_source_code));
  if (!fare.is_valid) throw validation('fare_source_code', 'this fare is no longer available; search again');
  const departure = fare.legs[0]?.segments[0]?.departure;
  if (!departure) throw validation('fare_source_code', 'the fare has no itinerary');
  validateTravelers(input.traveler_info.air_travelers, fare.passengers, dayOf(departure));

  const booking = await newFlightBooking(deps.db, {
    partnerId: partner.id,
    fareSourceCode: input.fare_source_code,
    departureAt: new Date(departure),
    travelers: input.traveler_info.air_travelers,
    contact: input.traveler_info.contact,
    currency,
  });
  const workflowId = bookFlightWorkflowId(booking.id);
  const handle = await startOrJoin(deps.temporal, 'bookFlight', {
    workflowId,
    taskQueue: deps.taskQueue,
    args: [{ bookingId: booking.id, clientReference: workflowId }],
    typedSearchAttributes: bookingAttributes({ partnerId: partner.id, service: 'flight', stage: 'holding' }),
  });
  const booked = await awaitWorkflow(handle, deps.waitMs, (f) => (f.type === FlightFailure.bookingRefused ? validation('fare_source_code', f.message) : null));
  if (!booked)
    throw new DomainError('supplier_failed', `the airline has not answered yet; booking ${booking.id} is still being made, look for it in the order list`);
  const order = await flightOrderOf(deps.db, partner.id, booked.orderId);
  return { ...renderTravelOrder(order), booking_id: booking.id, pnr: booked.pnr, ticket_time_limit: new Date(booked.ticketTimeLimit).toISOString() };
}

export function renderFlightBooking(b: FlightBookingRow) {
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
    passengers: (b.travelers as unknown as Traveler[]).map((t, i) => ({
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

/** POST /api/flights/air_booking_data/. */
export async function bookingData(db: Db, partner: Partner, orderId: number) {
  const order = await flightOrderOf(db, partner.id, orderId);
  const booking = await flightBookingOfOrder(db, order.id);
  return { order: renderTravelOrder(order), booking: booking ? renderFlightBooking(booking) : null };
}

/**
 * POST /api/flights/air_order_ticket/: the tickets of a paid order. While ticketing is
 * still under way the pay workflow keeps retrying the airline; this answers where it is.
 */
export async function orderTicket(deps: FlightDeps, partner: Partner, orderId: number) {
  const order = await flightOrderOf(deps.db, partner.id, orderId);
  const booking = await flightBookingOfOrder(deps.db, order.id);
  if (order.status === 'pending') throw validation('order_id', `order ${orderId} is not paid yet; pay it to issue the tickets`);
  if (order.status === 'processing') {
    const running = order.paymentWorkflowId ? (await deps.temporal.workflow.getHandle(order.paymentWorkflowId).describe()).status.name === 'RUNNING' : false;
    return {
      done: false as const,
      data: {
        order_id: order.id,
        status: 'processing',
        pnr: booking?.pnr ?? null,
        ticketing: (running ? 'in_progress' : 'stalled') as 'in_progress' | 'stalled',
        payment_id: order.paymentWorkflowId,
        tickets: [],
      },
    };
  }
  if (!booking?.tickets?.length) throw validation('order_id', `order ${orderId} is ${order.status} and has no tickets`);
  const view = renderFlightBooking(booking);
  return {
    done: true as const,
    data: {
      order_id: order.id,
      status: order.status,
      pnr: booking.pnr,
      ticketing: 'issued' as const,
      payment_id: order.paymentWorkflowId,
      tickets: view.passengers.map((p) => ({
        first_name: p.first_name,
        last_name: p.last_name,
        passenger_type: p.passenger_type,
        ticket_number: p.ticket_number,
      })),
    },
  };
}

/** POST /api/flights/air_refund/: the refund workflow, awaited up to the bound. */
export async function refund(deps: FlightDeps, partner: Partner, input: { order_id: number; quote_id?: string }, scenario?: string) {
  const terms = await termsForRefund(deps.db, partner.id, input.order_id, input.quote_id, new Date());
  const args: RefundFlightInput = {
    orderId: input.order_id,
    refundMinor: terms.refundMinor,
    penaltyMinor: terms.penaltyMinor,
    ...(scenario ? { scenario } : {}),
  };
  const workflowId = refundWorkflowId(partner.id, input.order_id);
  const handle = await startOrJoin(deps.temporal, 'refundFlight', {
    workflowId,
    taskQueue: deps.taskQueue,
    args: [args],
    typedSearchAttributes: bookingAttributes({ partnerId: partner.id, orderId: input.order_id, service: 'flight', stage: 'cancelling' }),
  });
  const result = await awaitWorkflow(handle, deps.waitMs, (f) =>
    f.type === FlightFailure.refundRejected ? new DomainError('supplier_failed', f.message) : null,
  );
  const c = terms.order.currency;
  if (!result) return { done: false as const, data: { order_id: input.order_id, status: 'refunding', refund_id: workflowId } };
  return {
    done: true as const,
    data: {
      order_id: result.orderId,
      status: 'refunded',
      refund_amount: formatDecimal(result.refundMinor, c),
      penalty: formatDecimal(result.penaltyMinor, c),
      currency: c,
      ledger_id: result.ledgerId,
    },
  };
}

/** POST /api/flights/air_refund_offline/: the order waits for an operator (a workflow waiting for a signal). */
export async function refundOffline(deps: FlightDeps, partner: Partner, input: { order_id: number; reason: string }) {
  const order = await requestOfflineRefund(deps.db, partner.id, input.order_id, input.reason);
  await startOrJoin(deps.temporal, 'offlineFlightRefund', {
    workflowId: offlineRefundWorkflowId(order.id),
    taskQueue: deps.taskQueue,
    args: [{ orderId: order.id }],
    typedSearchAttributes: bookingAttributes({ partnerId: partner.id, orderId: order.id, service: 'flight', stage: 'waiting' }),
  });
  return { order_id: order.id, status: 'refund_requested', reason: input.reason };
}
