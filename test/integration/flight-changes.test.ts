import { and, eq } from 'drizzle-orm';
import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { flightChangeActivities } from '../../activities/flight-changes';
import { insertChange } from '../../src/domain/flights/changes';
import { SupplierRejectedError } from '../../src/suppliers/errors';
import type { FlightAfterSale } from '../../src/suppliers/flight-after-sale';
import type { FlightSupplier } from '../../src/suppliers/flights';
import { flightBookings, flightChanges, ledgerEntries, orders, scheduleChanges, transfers } from '../../src/db/schema';
import { scheduleChangeWorkflowId } from '../../workflows/schedule-change.types';
import { reconcile } from '../../src/domain/money/reconcile';
import { simulatorFlightAfterSale } from '../../src/suppliers/adapters/simulator/flight-after-sale';
import type { PartnerClient } from '../../src/client';
import { adminClient, newPartner as partnerWithWallet } from '../support/clients';
import { eventTypesOf } from '../support/events';
import { recordHistory } from '../support/histories';
import { startStack, type TestStack, useStack } from '../support/stack';
import { changeStateQuery } from '../../workflows/flight-change.types';
import { contact, day, traveller } from '../support/fixtures';

/** A partner changes a ticketed flight: offers priced in its wallet, then a saga that pays once and changes once. */

let stack: TestStack;
useStack((s) => (stack = s), { payWaitMs: 15_000 });
void startStack;

const TOPUP = 500_000_000;
const newPartner = () => partnerWithWallet(stack, '0', String(TOPUP));
const minor = (decimal: string | number) => Math.round(Number(decimal) * 100);
const DEPARTURE = day(30);
const adult = traveller;

/** A ticketed one-way THR→MHD flight in `family` on `date`, paid from the wallet (with the sandbox's `scenario`, if any): its order id. */
async function ticketed(client: PartnerClient, family: string, date = DEPARTURE, scenario?: 'schedule_change'): Promise<number> {
  const found = await client.POST('/flights/search_flights/', {
    body: { origin: 'THR', destination: 'MHD', departure_date_time: `${date}T00:00:00Z`, adult_count: 1, cabin_type: 'economy', air_trip_type: 'one_way' },
  });
  const fare = found.data!.data.results.find((o) => o.fare_family === family);
  if (!fare) throw new Error(`no ${family} fare`);
  const booked = await client.POST('/flights/air_booking/', {
    body: { fare_source_code: fare.fare_source_code, traveler_info: { contact, air_travelers: [adult] } },
  });
  expect(booked.response.status).toBe(201);
  const paid = await client.POST('/partners/pay/', {
    ...(scenario ? { params: { header: { 'x-sandbox-scenario': scenario } } } : {}),
    body: { order_id: booked.data!.data.id, idempotency_key: `fly-${booked.data!.data.id}` },
  });
  expect(paid.data?.data.order_status).toBe('completed');
  return booked.data!.data.id;
}

const changeTo = (orderId: number, date: string, scenario?: 'change_penalty' | 'change_offer_expires') => ({
  ...(scenario ? { params: { header: { 'x-sandbox-scenario': scenario } } } : {}),
  body: { order_id: orderId, remove: [0], add: [{ origin: 'THR', destination: 'MHD', departure_date: date, cabin_type: 'economy' as const }] },
});

const orderRow = async (id: number) => (await stack.db.select().from(orders).where(eq(orders.id, id)))[0]!;
const bookingOf = async (orderId: number) => (await stack.db.select().from(flightBookings).where(eq(flightBookings.orderId, orderId)))[0]!;
const changeMovements = (orderId: number) =>
  stack.db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.orderId, orderId)))
    .then((rows) => rows.filter((r) => r.step?.startsWith('flight-change-')));
const findingsOf = async (orderId: number) => (await reconcile(stack.db, new Date(), 60 * 60_000)).findings.filter((f) => f.order_id === orderId);

/** An offer of the change to `date` whose total has the sign asked for (the fares of the days differ): searched over the days after it. */
async function offerCosting(client: PartnerClient, orderId: number, sign: 1 | -1, from = 31) {
  for (let d = from; d < from + 30; d++) {
    const res = await client.POST('/flights/air_change_request/', changeTo(orderId, day(d)));
    expect(res.response.status).toBe(200);
    const offer = res.data!.data.offers.find((o) => Math.sign(Number(o.total)) === sign);
    if (offer) return offer;
  }
  throw new Error(`no change offer with a ${sign > 0 ? 'positive' : 'negative'} total in 30 days`);
}

describe('air_change_request', () => {
  it('answers the airline’s offers in the wallet currency: fare difference, penalty, our fee from the flight_change rule, the total', async () => {
    const { client, creds } = await newPartner();
    const fee = await adminClient(stack).post('/admin/markups', { service: 'flight_change', partner: creds.partner_id, fixed: '5.00' });
    expect(fee.status).toBe(201);
    const orderId = await ticketed(client, 'Standard');
    const res = await client.POST('/flights/air_change_request/', changeTo(orderId, day(32)));
    expect(res.response.status).toBe(200);
    const offers = res.data!.data.offers;
    expect(offers.length).toBeGreaterThan(0);
    for (const o of offers) {
      expect(o.currency).toBe((await orderRow(orderId)).currency);
      expect(o.change_fee).toBe('5.00');
      expect(minor(o.total)).toBe(minor(o.fare_difference) + minor(o.penalty) + minor(o.change_fee));
      expect(minor(o.penalty)).toBeGreaterThan(0);
      expect(o.remove).toEqual([0]);
      expect(o.add[0]!.segments[0]!.departure.slice(0, 10)).toBe(day(32));
      expect(Date.parse(o.expires_at)).toBeGreaterThan(Date.now());
    }
  });

  it('refuses what cannot be changed, as 400s that name the field', async () => {
    const { client } = await newPartner();
    const orderId = await ticketed(client, 'Flex');
    const noLeg = await client.POST('/flights/air_change_request/', { body: { order_id: orderId, remove: [3], add: [] } });
    expect(noLeg.response.status).toBe(400);
    expect(noLeg.error?.error).toMatch(/^remove:/);
    const nothing = await client.POST('/flights/air_change_request/', { body: { order_id: orderId, remove: [], add: [] } });
    expect(nothing.response.status).toBe(400);
    const business = await client.POST('/flights/air_change_request/', {
      body: { order_id: orderId, remove: [0], add: [{ origin: 'THR', destination: 'MHD', departure_date: day(33), cabin_type: 'business' }] },
    });
    expect(business.response.status).toBe(400);
    expect(business.error?.error).toMatch(/^order_id: .*cabin/);
  });
});

describe('air_change_confirm', () => {
  it('changes a ticketed flight to another date: debits the total once, reissues, and the books, events and reconcile show it', async () => {
    const { client, api, creds } = await newPartner();
    await adminClient(stack).post('/admin/markups', { service: 'flight_change', partner: creds.partner_id, fixed: '5.00' });
    const orderId = await ticketed(client, 'Standard');
    const before = await orderRow(orderId);
    const ticketsBefore = (await bookingOf(orderId)).tickets;
    const walletBefore = minor((await api.wallet()).balance);
    const offer = await offerCosting(client, orderId, 1);

    const confirm = { order_id: orderId, change_offer_id: offer.change_offer_id, idempotency_key: `change-${orderId}` };
    const res = await client.POST('/flights/air_change_confirm/', { body: confirm });
    expect(res.response.status).toBe(200);
    expect(res.data?.data).toMatchObject({ order_id: orderId, status: 'confirmed', total: offer.total, currency: before.currency });
    expect(minor(res.data!.data.order_total!)).toBe(before.totalPrice + minor(offer.total));

    expect(minor((await api.wallet()).balance)).toBe(walletBefore - minor(offer.total));
    const booking = await bookingOf(orderId);
    expect((booking.legs as Array<{ segments: Array<{ departure: string }> }>)[0]!.segments[0]!.departure).toBe(offer.add[0]!.segments[0]!.departure);
    expect(booking.tickets).not.toEqual(ticketsBefore);
    const after = await orderRow(orderId);
    expect(after.margin).toBe((before.margin ?? 0) + 500);
    expect(after.status).toBe('completed');

    // The same key joins the same change: nothing moves again.
    const again = await client.POST('/flights/air_change_confirm/', { body: confirm });
    expect(again.response.status).toBe(200);
    expect(again.data?.data.change_id).toBe(res.data!.data.change_id);
    const moves = await changeMovements(orderId);
    expect(moves).toHaveLength(1);
    expect(moves[0]).toMatchObject({ type: 'payment', direction: 'debit', amount: minor(offer.total) });
    const legs = await stack.db.select().from(transfers).where(eq(transfers.ledgerEntryId, moves[0]!.id));
    expect(legs.map((l) => [l.kind, l.creditAccount, l.amount]).sort()).toEqual(
      [
        ['sale_margin', `margin:${before.currency}`, 500],
        ['sale_net', `supplier:simulator:${before.currency}`, minor(offer.total) - 500],
      ].sort(),
    );
    expect(await eventTypesOf(api, orderId)).toEqual(['order.processing', 'order.completed', 'order.changed']);
    expect(await findingsOf(orderId)).toEqual([]);
    await recordHistory(stack, (await stack.db.select().from(flightChanges).where(eq(flightChanges.orderId, orderId)))[0]!.workflowId, 'flight-change');
  });

  it('credits a change that costs less', async () => {
    const { client, api } = await newPartner();
    // Domestic weekend flights (Thursday, Friday) cost 10% more: booked on one, a weekday is cheaper.
    const thursday = Array.from({ length: 7 }, (_, i) => day(30 + i)).find((d) => new Date(`${d}T00:00:00Z`).getUTCDay() === 4)!;
    const orderId = await ticketed(client, 'Flex', thursday);
    const walletBefore = minor((await api.wallet()).balance);
    const offer = await offerCosting(client, orderId, -1);
    const res = await client.POST('/flights/air_change_confirm/', {
      body: { order_id: orderId, change_offer_id: offer.change_offer_id, idempotency_key: `cheaper-${orderId}` },
    });
    expect(res.response.status).toBe(200);
    expect(minor((await api.wallet()).balance)).toBe(walletBefore - minor(offer.total));
    const moves = await changeMovements(orderId);
    expect(moves).toHaveLength(1);
    expect(moves[0]).toMatchObject({ type: 'refund', direction: 'credit', amount: -minor(offer.total) });
    expect(await findingsOf(orderId)).toEqual([]);
  });

  it('refuses a key used for another change, an offer for another order, and an expired offer, charging nothing', async () => {
    const { client, api } = await newPartner();
    const orderId = await ticketed(client, 'Flex');
    const other = await ticketed(client, 'Flex');
    const offer = await offerCosting(client, orderId, 1);
    const wrongOrder = await client.POST('/flights/air_change_confirm/', {
      body: { order_id: other, change_offer_id: offer.change_offer_id, idempotency_key: 'k-1' },
    });
    expect(wrongOrder.response.status).toBe(400);
    expect(wrongOrder.error?.error).toMatch(/^change_offer_id:/);
    const forged = await client.POST('/flights/air_change_confirm/', { body: { order_id: orderId, change_offer_id: 'ACO-000001', idempotency_key: 'k-2' } });
    expect(forged.response.status).toBe(400);

    const expiring = await client.POST('/flights/air_change_request/', changeTo(orderId, day(34), 'change_offer_expires'));
    expect(expiring.response.status).toBe(200);
    const stale = expiring.data!.data.offers[0]!;
    const walletBefore = (await api.wallet()).balance;
    const expired = await client.POST('/flights/air_change_confirm/', {
      body: { order_id: orderId, change_offer_id: stale.change_offer_id, idempotency_key: 'k-3' },
    });
    expect(expired.response.status).toBe(400);
    expect(expired.error?.error).toMatch(/expired/);
    expect((await api.wallet()).balance).toBe(walletBefore);

    const made = await client.POST('/flights/air_change_confirm/', {
      body: { order_id: orderId, change_offer_id: offer.change_offer_id, idempotency_key: 'k-4' },
    });
    expect(made.response.status).toBe(200);
    const next = await offerCosting(client, orderId, 1, 40);
    const reused = await client.POST('/flights/air_change_confirm/', {
      body: { order_id: orderId, change_offer_id: next.change_offer_id, idempotency_key: 'k-4' },
    });
    expect(reused.response.status).toBe(409);
    expect(await findingsOf(orderId)).toEqual([]);
  });

  it('credits the debit back when the airline refuses the change: 502, the order as it was', async () => {
    const { client, api } = await newPartner();
    const orderId = await ticketed(client, 'Standard');
    const before = await orderRow(orderId);
    const legsBefore = (await bookingOf(orderId)).legs;
    const walletBefore = (await api.wallet()).balance;
    const offer = await offerCosting(client, orderId, 1);
    const res = await client.POST('/flights/air_change_confirm/', {
      params: { header: { 'x-sandbox-scenario': 'supplier_reject' } },
      body: { order_id: orderId, change_offer_id: offer.change_offer_id, idempotency_key: `refused-${orderId}` },
    });
    expect(res.response.status).toBe(502);
    expect(res.error?.error).toMatch(/did not change order .*credited back/);
    expect((await api.wallet()).balance).toBe(walletBefore);
    expect((await orderRow(orderId)).totalPrice).toBe(before.totalPrice);
    expect((await bookingOf(orderId)).legs).toEqual(legsBefore);
    const moves = await changeMovements(orderId);
    expect(moves.map((m) => [m.type, m.amount])).toEqual([
      ['payment', minor(offer.total)],
      ['refund', minor(offer.total)],
    ]);
    expect((await stack.db.select().from(flightChanges).where(eq(flightChanges.orderId, orderId)))[0]).toMatchObject({ status: 'failed' });
    expect(await eventTypesOf(api, orderId)).toEqual(['order.processing', 'order.completed']);
    expect(await findingsOf(orderId)).toEqual([]);
    // The same key keeps its outcome: the change is not tried again.
    const again = await client.POST('/flights/air_change_confirm/', {
      body: { order_id: orderId, change_offer_id: offer.change_offer_id, idempotency_key: `refused-${orderId}` },
    });
    expect(again.response.status).toBe(502);
    expect(await changeMovements(orderId)).toHaveLength(2);
    await recordHistory(stack, (await stack.db.select().from(flightChanges).where(eq(flightChanges.orderId, orderId)))[0]!.workflowId, 'flight-change-refused');
  });

  it('finds a change whose answers were lost: made once at the airline, debited once', async () => {
    const { client, api } = await newPartner();
    const orderId = await ticketed(client, 'Flex');
    const walletBefore = minor((await api.wallet()).balance);
    const offer = await offerCosting(client, orderId, 1);
    const res = await client.POST('/flights/air_change_confirm/', {
      params: { header: { 'x-sandbox-scenario': 'supplier_lost_response' } },
      body: { order_id: orderId, change_offer_id: offer.change_offer_id, idempotency_key: `lost-${orderId}` },
    });
    expect(res.response.status).toBe(200);
    expect(res.data?.data.status).toBe('confirmed');
    expect(minor((await api.wallet()).balance)).toBe(walletBefore - minor(offer.total));
    expect(await changeMovements(orderId)).toHaveLength(1);
    const change = (await stack.db.select().from(flightChanges).where(eq(flightChanges.orderId, orderId)))[0]!;
    expect(change.supplierChangeId).toMatch(/^ACH-/);
    // The airline has the one change, confirmed: its order carries the new flight.
    const airline = await simulatorFlightAfterSale(stack.simulatorUrl).change(change.supplierChangeId!);
    expect(airline.confirmed_at).not.toBeNull();
    expect(await findingsOf(orderId)).toEqual([]);
  });

  it('takes a lookup refused on a later try for no answer: the try before may have made the change, so it is tried again, never credited back', async () => {
    const { client, creds } = await newPartner();
    const orderId = await ticketed(client, 'Flex');
    const currency = (await orderRow(orderId)).currency;
    const change = await insertChange(stack.db, {
      kind: 'change',
      partnerId: creds.partner_id,
      orderId,
      idempotencyKey: 'lookup-refused',
      supplier: 'simulator',
      changeOfferId: 'offer-looked-up',
      supplierAmount: 1000,
      supplierCurrency: currency,
      netMinor: 1000,
      penaltyMinor: 0,
      feeMinor: 0,
      agencyFeeMinor: 0,
      currency,
    });
    const refusing = {
      findChange: () => Promise.reject(new SupplierRejectedError('no such change offer', 400)),
      createChange: () => Promise.reject(new Error('not to be made without a lookup')),
    } as unknown as FlightAfterSale;
    const tryNumber = (attempt: number) =>
      new MockActivityEnvironment({ attempt })
        .run(() =>
          flightChangeActivities(
            stack.db,
            () => ({}) as FlightSupplier,
            () => refusing,
          ).changeAtAirline({ changeId: change.id }),
        )
        .catch((err: unknown) => err);
    // The first try has made nothing: the refusal is the airline's answer, and the saga credits back.
    expect(await tryNumber(1)).toMatchObject({ type: 'supplier_rejected', nonRetryable: true });
    const later = await tryNumber(2);
    expect(later).not.toBeInstanceOf(ApplicationFailure);
    expect((later as Error).message).toMatch(/did not let the change from offer offer-looked-up be looked up/);
    await stack.db.update(flightChanges).set({ status: 'failed' }).where(eq(flightChanges.id, change.id));
  });

  it('parks a change the airline does not answer for an operator, who compensates: the debit is credited back', async () => {
    const { client, api } = await newPartner();
    const orderId = await ticketed(client, 'Flex');
    const walletBefore = (await api.wallet()).balance;
    const offer = await offerCosting(client, orderId, 1);
    const res = await client.POST('/flights/air_change_confirm/', {
      params: { header: { 'x-sandbox-scenario': 'supplier_down' } },
      body: { order_id: orderId, change_offer_id: offer.change_offer_id, idempotency_key: `down-${orderId}` },
    });
    expect([200, 202]).toContain(res.response.status);
    const change = (await stack.db.select().from(flightChanges).where(eq(flightChanges.orderId, orderId)))[0]!;
    const handle = stack.client.workflow.getHandle(change.workflowId);
    for (let i = 0; i < 120 && (await handle.query(changeStateQuery)).step !== 'needs_attention'; i++) await new Promise((r) => setTimeout(r, 500));
    expect(await handle.query(changeStateQuery)).toMatchObject({ step: 'needs_attention', parkedAt: 'changing' });
    const admin = adminClient(stack);
    expect((await admin.post(`/admin/orders/${orderId}/confirm`, { reason: 'the airline says it changed' })).status).toBe(409);
    const decided = await admin.post(`/admin/orders/${orderId}/compensate`, { reason: 'the airline confirms nothing was changed' });
    expect(decided.status).toBe(200);
    await expect(handle.result()).rejects.toThrow();
    expect((await api.wallet()).balance).toBe(walletBefore);
    expect((await stack.db.select().from(flightChanges).where(eq(flightChanges.id, change.id)))[0]).toMatchObject({ status: 'failed' });
    expect(await findingsOf(orderId)).toEqual([]);
    await recordHistory(stack, change.workflowId, 'flight-change-parked-compensated');
  }, 120_000);

  it('ends a schedule change still waiting for a decision as changed, once the partner changed the flight instead', async () => {
    const { client, api } = await newPartner();
    const booked = await ticketed(client, 'Flex', DEPARTURE, 'schedule_change');
    expect((await adminClient(stack).post('/admin/schedule-changes/poll')).status).toBe(200);
    const [pending] = await stack.db.select().from(scheduleChanges).where(eq(scheduleChanges.orderId, booked));
    expect(pending).toMatchObject({ status: 'pending' });
    const offer = await offerCosting(client, booked, 1);
    const res = await client.POST('/flights/air_change_confirm/', {
      body: { order_id: booked, change_offer_id: offer.change_offer_id, idempotency_key: `instead-${booked}` },
    });
    expect(res.response.status).toBe(200);
    const handle = stack.client.workflow.getHandle(scheduleChangeWorkflowId(booked, pending!.changeId));
    expect(await handle.result()).toMatchObject({ status: 'changed', resolvedBy: 'change' });
    expect(await eventTypesOf(api, booked)).toEqual([
      'order.processing',
      'order.completed',
      'order.schedule_changed',
      'order.changed',
      'order.schedule_change_resolved',
    ]);
    expect(await findingsOf(booked)).toEqual([]);
  });
});
