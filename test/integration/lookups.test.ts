import { asc, eq } from 'drizzle-orm';
import { hotelBookings, ledgerEntries } from '../../src/db/schema';
import { adminClient, newPartner, type partnerClient } from '../support/clients';
import { scheduledActivities } from '../support/histories';
import { type TestStack, useStack } from '../support/stack';
import { contact, day, traveller } from '../support/fixtures';
import { payLeftOpen, settledStatus } from '../support/unanswered';

/**
 * A payment whose hotel confirmation or air ticketing gets no answer: after its attempts
 * (two here) the saga asks the supplier for the hold / PNR state and acts on that answer —
 * completes when the supplier did book, refunds when it certainly did not.
 *
 * These read the supplier step's failures from the history: it is an activity of its own.
 */

let stack: TestStack;
// The holds and air bookings these pay for get the API's ordinary wait (a 1 s wait made the
// hold answer `placing` on a loaded cluster); the payment itself is left unanswered on purpose.
useStack((s) => (stack = s), { payWaitMs: 15_000, finalizeAttempts: 2 });

type Api = ReturnType<typeof partnerClient>;
const partner = () => newPartner(stack, '0', '500000000');

const ledgerOf = async (orderId: number) =>
  (await stack.db.select().from(ledgerEntries).where(eq(ledgerEntries.orderId, orderId)).orderBy(asc(ledgerEntries.id))).map((e) => e.type);

async function hotelOrder(api: Api): Promise<number> {
  const found = await api.post('/api/hotel/search_hotels/', {
    city_id: 1,
    check_in: day(40),
    check_out: day(42),
    nationality_id: 'IR',
    rooms: [{ adult_count: 1 }],
  });
  const rateKey = found.body.data.results[0].rates[0].rate_key;
  const booked = await api.post('/api/hotel/book/', {
    rate_key: rateKey,
    guests: [[{ first_name: 'Sara', last_name: 'Ahmadi', nationality: 'IR', national_id: '0012345679' }]],
    contact,
  });
  expect(booked.status).toBe(200);
  const ordered = await api.post('/api/hotel/order/', { booking_id: booked.body.data.booking_id });
  expect(ordered.status).toBe(201);
  return ordered.body.data.id;
}

async function flightOrder(api: Api): Promise<number> {
  const search = {
    origin: 'THR',
    destination: 'MHD',
    departure_date_time: `${day(30)}T00:00:00Z`,
    adult_count: 1,
    cabin_type: 'economy',
    air_trip_type: 'one_way',
  };
  const offer = (await api.post('/api/flights/search_flights/', search)).body.data.results[0];
  const booked = await api.post('/api/flights/air_booking/', {
    fare_source_code: offer.fare_source_code,
    traveler_info: { contact, air_travelers: [traveller] },
  });
  expect(booked.status).toBe(201);
  return booked.body.data.id;
}

describe('hotel confirmation without an answer', () => {
  it('completes with the confirmation number the hold shows when the hotel did confirm', async () => {
    const { api, creds } = await partner();
    const orderId = await hotelOrder(api);
    expect(await settledStatus(stack, await payLeftOpen(stack, creds, { orderId, scenario: 'supplier_lost_response' }))).toBe('completed');
    const [booking] = await stack.db.select().from(hotelBookings).where(eq(hotelBookings.orderId, orderId));
    expect(booking).toMatchObject({ status: 'confirmed', confirmationNumber: expect.any(String) });
    const listed = (await api.get('/api/partners/orders/')).body.data.results.find((o: { id: number }) => o.id === orderId);
    expect(listed).toMatchObject({ status: 'completed', supplier_ref: booking!.confirmationNumber });
    expect(await ledgerOf(orderId)).toEqual(['payment']);
    // The workflow's history tells how it ended: the attempts ran out, then the look-up answered.
    const inspected = await adminClient(stack).get(`/admin/orders/${orderId}`);
    expect(inspected.body.payment).toMatchObject({ status: 'COMPLETED' });
    const { events } = await stack.client.workflow.getHandle(inspected.body.payment.workflow_id).fetchHistory();
    const failed = events!.flatMap((e) => (e.activityTaskFailedEventAttributes ? [e.activityTaskFailedEventAttributes.failure] : []));
    expect(failed).toEqual([expect.objectContaining({ applicationFailureInfo: expect.objectContaining({ type: 'outcome_unknown' }) })]);
    expect(failed[0]!.message).toMatch(/no answer from the supplier after 2 attempts: .*504/);
    // (debit and completion are local activities: markers, not scheduled activities)
    expect(await scheduledActivities(stack, inspected.body.payment.workflow_id)).toEqual(['finalizeOrder', 'lookupFinalization']);
  });

  it('refunds when the hold shows no confirmation, and the hold can still be paid', async () => {
    const { api, creds } = await partner();
    const orderId = await hotelOrder(api);
    expect(await settledStatus(stack, await payLeftOpen(stack, creds, { orderId, scenario: 'supplier_down' }))).toBe('pending');
    expect(await ledgerOf(orderId)).toEqual(['payment', 'refund']);
    expect(await api.wallet()).toMatchObject({ balance: '500000000.00' });
    const again = await api.post('/api/partners/pay/', { order_id: orderId });
    expect(again.status).toBe(200);
    expect(again.body.data.order_status).toBe('completed');
  });
});

describe('air ticketing without an answer', () => {
  it('completes with the tickets the PNR shows when the airline did ticket', async () => {
    const { api, creds } = await partner();
    const orderId = await flightOrder(api);
    expect(await settledStatus(stack, await payLeftOpen(stack, creds, { orderId, scenario: 'supplier_lost_response' }))).toBe('completed');
    const tickets = await api.post('/api/flights/air_order_ticket/', { order_id: orderId });
    expect(tickets.body.data).toMatchObject({ status: 'completed', ticketing: 'issued' });
    expect(tickets.body.data.tickets).toEqual([expect.objectContaining({ ticket_number: expect.stringMatching(/^\d{13}$/) })]);
    expect(await ledgerOf(orderId)).toEqual(['payment']);
  });

  it('refunds when the PNR is still unticketed', async () => {
    const { api, creds } = await partner();
    const orderId = await flightOrder(api);
    expect(await settledStatus(stack, await payLeftOpen(stack, creds, { orderId, scenario: 'supplier_down' }))).toBe('pending');
    expect(await ledgerOf(orderId)).toEqual(['payment', 'refund']);
    expect(await api.wallet()).toMatchObject({ balance: '500000000.00' });
  });
});
